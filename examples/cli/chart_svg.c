/* The chart as a standalone SVG document: the breakdown bars and the step
 * timeline. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_internal.h"

/* Text content or attribute value: XML-escaped, and any byte that is not part
 * of valid UTF-8 (a model path can hold anything) replaced, so the document
 * always parses. */
static void xml_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned c = *p;
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        int ok = len > 0 && !(len == 2 && c < 0xC2) && !(len == 4 && c > 0xF4);
        for (size_t i = 1; ok && i < len; i++)
            if ((p[i] & 0xC0) != 0x80) ok = 0;
        if (!ok) {
            fputc('?', f);
            p++;
            continue;
        }
        if (len > 1) {
            fwrite(p, 1, len, f);
            p += len;
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fputc(c < 0x20 && c != '\t' && c != '\n' ? '?' : (int)c, f); break;
        }
        p++;
    }
}

/* A "nice" axis step (1, 2, 2.5 or 5 times a power of ten) for about 6 ticks. */
static double nice_step(double max)
{
    if (max <= 0) return 1;
    double raw = max / 6, mag = pow(10, floor(log10(raw))), r = raw / mag;
    return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 2.5 ? 2.5 : r <= 5 ? 5 : 10) * mag;
}

/* Approximate width of text in px for the sans-serif fonts at `size`. */
static double text_w(const char *s, double size) { return (double)strlen(s) * size * 0.58; }

static int dark_text_on(const char *hex)
{
    unsigned r = 0, g = 0, b = 0;
    if (sscanf(hex, "#%02x%02x%02x", &r, &g, &b) != 3) return 1;
    return 0.299 * r + 0.587 * g + 0.114 * b > 150;
}

#define SVG_W 960.0
#define MARGIN_L 70.0
#define MARGIN_R 40.0
#define PLOT_W (SVG_W - MARGIN_L - MARGIN_R)

static const char *phase_fill(const char *phase)
{
    static const struct {
        const char *p, *fill;
    } fills[] = {{"load", "#eef2f7"},      {"forward", "#e8f3e6"}, {"backward", "#fbeee3"},
                 {"optimizer", "#f1e8f4"}, {"prefill", "#e8f3e6"}, {"decode", "#fbeee3"}};
    for (size_t i = 0; phase && i < sizeof fills / sizeof fills[0]; i++)
        if (!strcmp(fills[i].p, phase)) return fills[i].fill;
    return "#f2f2f2";
}

static void point_label(char *buf, size_t cap, const vc_point *p)
{
    const char *l = p->label && *p->label ? p->label : p->phase ? p->phase : "";
    if (p->layer < 0)
        snprintf(buf, cap, "%s", l);
    else if (!strcmp(l, "layer"))
        snprintf(buf, cap, "layer %lld", (long long)p->layer);
    else
        snprintf(buf, cap, "%s (%lld)", l, (long long)p->layer);
}

/* The breakdown: one stacked bar per vc_bar on a shared GiB axis. Returns the
 * y below it. */
static double svg_bars(FILE *f, const vc_chart *c, double y, const size_t *order, size_t norder)
{
    uint64_t maxb = c->capacity;
    for (size_t b = 0; b < c->nbars; b++)
        if (c->bars[b].device_total > maxb) maxb = c->bars[b].device_total;
    double step = nice_step(vc_gib(maxb) * 1.04), top = ceil(vc_gib(maxb) * 1.04 / step) * step;
    if (top <= 0) top = 1;
#define XB(g) (MARGIN_L + (g) / top * PLOT_W)

    fprintf(f, "<g id=\"breakdown\">\n<text class=\"h2\" x=\"%.1f\" y=\"%.1f\">", MARGIN_L, y);
    xml_text(f, c->bars_heading ? c->bars_heading : "GPU memory at the peak");
    fputs("</text>\n", f);
    y += c->capacity ? 30 : 14; /* a row for the capacity label */
    double bars_top = y, row = 58, bar_h = 26;
    double bars_bottom = bars_top + row * (double)c->nbars;

    /* Grid first, so bars draw over it. */
    for (double t = 0; t <= top + step * 1e-9; t += step) {
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", XB(t), bars_top,
                XB(t), bars_bottom);
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", XB(t),
                bars_bottom + 14, t);
    }
    fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">GiB</text>\n", MARGIN_L - 8,
            bars_bottom + 14);

    for (size_t b = 0; b < c->nbars; b++) {
        const vc_bar *bar = &c->bars[b];
        double ty = bars_top + row * (double)b + 14, by = ty + 6;
        fprintf(f, "<text class=\"barlabel\" x=\"%.1f\" y=\"%.1f\">", MARGIN_L, ty);
        if (bar->label && *bar->label) {
            fputs("<tspan font-weight=\"bold\">", f);
            xml_text(f, bar->label);
            fputs("</tspan>  ", f);
        }
        fprintf(f, "peak_allocated %.2f \u00b7 peak_reserved %.2f \u00b7 device_total %.2f GiB%s</text>\n",
                vc_gib(bar->peak_allocated), vc_gib(bar->peak_reserved), vc_gib(bar->device_total),
                bar->fits == 1 ? " \u00b7 fits" : bar->fits == 0 ? " \u00b7 does not fit" : "");
        uint64_t cum = 0;
        for (size_t i = 0; i < norder; i++) {
            size_t k = order[i];
            uint64_t v = bar->cats[k];
            if (!v) continue;
            double x0 = XB(vc_gib(cum)), x1 = XB(vc_gib(cum + v)), w = x1 - x0;
            cum += v;
            const char *name = c->cat_names[k], *hex = vc_cat_hex(name, k);
            fprintf(f, "<rect class=\"cat\" data-category=\"");
            xml_text(f, name);
            fprintf(f, "\" data-bytes=\"%llu\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\">"
                       "<title>",
                    (unsigned long long)v, x0, by, w < 0.5 ? 0.5 : w, bar_h, hex);
            xml_text(f, name);
            fprintf(f, ": %.3f GiB", vc_gib(v));
            if (bar->lo && bar->hi) fprintf(f, " (band %.3f\u2013%.3f)", vc_gib(bar->lo[k]), vc_gib(bar->hi[k]));
            if (bar->prov && bar->prov[k]) {
                fputs(", ", f);
                xml_text(f, bar->prov[k]);
            }
            fputs("</title></rect>\n", f);
            /* Name inside the segment when it fits, with the size if that fits too. */
            char lab[96];
            snprintf(lab, sizeof lab, "%s %.1f", name, vc_gib(v));
            const char *shown = text_w(lab, 11) + 8 <= w ? lab : text_w(name, 11) + 8 <= w ? name : NULL;
            if (shown) {
                fprintf(f, "<text class=\"seg\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\">",
                        x0 + w / 2, by + bar_h / 2 + 4, dark_text_on(hex) ? "#1b1b1b" : "#ffffff");
                xml_text(f, shown);
                fputs("</text>\n", f);
            }
        }
    }

    if (c->capacity) {
        double x = XB(vc_gib(c->capacity));
        fprintf(f, "<line class=\"capacity\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x,
                bars_top - 14, x, bars_bottom + 2);
        char lab[160];
        snprintf(lab, sizeof lab, "%s%s%.2f GiB", c->device ? c->device : "", c->device ? " " : "",
                 vc_gib(c->capacity));
        int right = x + text_w(lab, 11) + 4 > SVG_W - 4;
        fprintf(f, "<text class=\"caplabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", right ? x - 4 : x + 4,
                bars_top - 4, right ? "end" : "start");
        xml_text(f, lab);
        fputs("</text>\n", f);
    }

    /* Legend: every category drawn in any bar, in drawing order. */
    y = bars_bottom + 34;
    double lx = MARGIN_L, item_w = 210;
    for (size_t i = 0; i < norder; i++) {
        size_t k = order[i];
        int any = 0;
        for (size_t b = 0; b < c->nbars; b++)
            if (c->bars[b].cats[k]) any = 1;
        if (!any) continue;
        if (lx + item_w > SVG_W - MARGIN_R + 1) lx = MARGIN_L, y += 20;
        fprintf(f, "<rect class=\"swatch\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>", lx,
                y - 10, vc_cat_hex(c->cat_names[k], k));
        fprintf(f, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">", lx + 17, y);
        xml_text(f, c->cat_names[k]);
        if (c->nbars == 1 && vc_gib(c->bars[0].cats[k]) < 0.005)
            fputs(" &lt;0.01 GiB", f);
        else if (c->nbars == 1)
            fprintf(f, " %.2f GiB", vc_gib(c->bars[0].cats[k]));
        fputs("</text>\n", f);
        lx += item_w;
    }
    fprintf(f, "<text class=\"note\" x=\"%.1f\" y=\"%.1f\">Stacked in this order: the allocated categories "
               "end at peak_allocated, the allocator's slack at peak_reserved,</text>\n"
               "<text class=\"note\" x=\"%.1f\" y=\"%.1f\">and the framework (CUDA context, NCCL buffers) at "
               "device_total, what nvidia-smi shows.</text>\n</g>\n",
            MARGIN_L, y + 22, MARGIN_L, y + 36);
    return y + 36;
#undef XB
}

static int same_phases(const vc_series *a, const vc_series *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->pts[i].phase ? a->pts[i].phase : "", b->pts[i].phase ? b->pts[i].phase : "")) return 0;
    return 1;
}

/* The step timeline: allocated bytes at each point, phases as bands. */
static double svg_timeline(FILE *f, const vc_chart *c, double y)
{
    const vc_series *s0 = &c->series[0];
    size_t n = s0->n;
    uint64_t maxb = c->capacity;
    for (size_t s = 0; s < c->nseries; s++) {
        for (size_t i = 0; i < c->series[s].n; i++)
            if (c->series[s].pts[i].allocated > maxb) maxb = c->series[s].pts[i].allocated;
        if (c->series[s].device_total > maxb) maxb = c->series[s].device_total;
    }
    double step = nice_step(vc_gib(maxb) * 1.08), top = ceil(vc_gib(maxb) * 1.08 / step) * step;
    if (top <= 0) top = 1;
    double ph = 250, y0 = y + 36, ybase = y0 + ph, xs = PLOT_W / (double)n;
#define XT(i) (MARGIN_L + ((double)(i) + 0.5) * xs)
#define YT(g) (ybase - (g) / top * ph)

    fprintf(f, "<g id=\"timeline\">\n<text class=\"h2\" x=\"%.1f\" y=\"%.1f\">Step timeline: GPU memory "
               "allocated at each point (torch.cuda.memory_allocated)</text>\n",
            MARGIN_L, y);
    /* Phases: runs of equal phase, split half-way between points, as a
     * labelled strip over the plot and a faint background below it. */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && !strcmp(s0->pts[j + 1].phase ? s0->pts[j + 1].phase : "",
                                    s0->pts[i].phase ? s0->pts[i].phase : ""))
            j++;
        double x0 = MARGIN_L + (double)i * xs, x1 = MARGIN_L + (double)(j + 1) * xs;
        const char *fill = phase_fill(s0->pts[i].phase);
        fprintf(f, "<rect class=\"phase\" data-phase=\"");
        xml_text(f, s0->pts[i].phase);
        fprintf(f, "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.45\"/>\n",
                x0, y0, x1 - x0, ph, fill);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"22\" fill=\"%s\"/>\n", x0, y0 - 22,
                x1 - x0, fill);
        if (i > 0)
            fprintf(f, "<line class=\"phasesep\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x0, y0 - 22,
                    x0, ybase);
        fprintf(f, "<text class=\"phaselabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (x0 + x1) / 2,
                y0 - 7);
        xml_text(f, s0->pts[i].phase);
        fputs("</text>\n", f);
        i = j + 1;
    }
    for (double t = 0; t <= top + step * 1e-9; t += step) {
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", MARGIN_L, YT(t),
                SVG_W - MARGIN_R, YT(t));
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", MARGIN_L - 6,
                YT(t) + 4, t);
    }
    fprintf(f, "<text class=\"tick\" transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"middle\">"
               "GiB</text>\n",
            MARGIN_L - 44, y0 + ph / 2);
    fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", MARGIN_L, ybase,
            SVG_W - MARGIN_R, ybase);

    /* Reference lines: the device, and device_total (allocated plus the
     * allocator's slack and the CUDA context) for a single series. */
    if (c->capacity) {
        double yc = YT(vc_gib(c->capacity));
        fprintf(f, "<line class=\"capacity\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", MARGIN_L, yc,
                SVG_W - MARGIN_R, yc);
        fprintf(f, "<text class=\"caplabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">capacity ",
                SVG_W - MARGIN_R - 4, yc - 4);
        if (c->device) {
            xml_text(f, c->device);
            fputc(' ', f);
        }
        fprintf(f, "%.2f GiB</text>\n", vc_gib(c->capacity));
    }
    if (c->nseries == 1 && s0->device_total) {
        double yd = YT(vc_gib(s0->device_total));
        fprintf(f, "<line class=\"total\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", MARGIN_L, yd,
                SVG_W - MARGIN_R, yd);
        fprintf(f, "<text class=\"totallabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\">device_total at the "
                   "peak %.2f GiB</text>\n",
                MARGIN_L + 4, yd + 13, vc_gib(s0->device_total));
    }

    for (size_t s = 0; s < c->nseries; s++) {
        const vc_series *sr = &c->series[s];
        const char *hex = c->nseries == 1 ? "#4e79a7" : vc_series_hex(s);
        if (c->nseries == 1) {
            fprintf(f, "<path class=\"timeline-area\" fill=\"%s\" fill-opacity=\"0.18\" d=\"M%.1f,%.1f", hex,
                    XT(0), ybase);
            for (size_t i = 0; i < sr->n; i++) fprintf(f, " L%.1f,%.1f", XT(i), YT(vc_gib(sr->pts[i].allocated)));
            fprintf(f, " L%.1f,%.1f Z\"/>\n", XT(sr->n - 1), ybase);
        }
        fprintf(f, "<path class=\"timeline\" data-series=\"");
        xml_text(f, sr->label ? sr->label : "");
        fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2.2\" d=\"", hex);
        for (size_t i = 0; i < sr->n; i++)
            fprintf(f, "%s%.1f,%.1f", i ? " L" : "M", XT(i), YT(vc_gib(sr->pts[i].allocated)));
        fputs("\"/>\n", f);
        size_t peak = 0;
        for (size_t i = 0; i < sr->n; i++)
            if (sr->pts[i].allocated > sr->pts[peak].allocated) peak = i;
        for (size_t i = 0; i < sr->n; i++) {
            char lab[160];
            point_label(lab, sizeof lab, &sr->pts[i]);
            fprintf(f, "<circle class=\"point%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>",
                    i == peak ? " peak" : "", XT(i), YT(vc_gib(sr->pts[i].allocated)), i == peak ? 5 : 3,
                    i == peak ? "#d62728" : hex);
            if (sr->label) {
                xml_text(f, sr->label);
                fputs(": ", f);
            }
            xml_text(f, sr->pts[i].phase);
            fputs(", ", f);
            xml_text(f, lab);
            fprintf(f, ": %.3f GiB</title></circle>\n", vc_gib(sr->pts[i].allocated));
        }
        if (c->nseries == 1) {
            double px = XT(peak), py = YT(vc_gib(sr->pts[peak].allocated));
            char lab[64];
            snprintf(lab, sizeof lab, "peak %.2f GiB", vc_gib(sr->pts[peak].allocated));
            int right = px + text_w(lab, 12) / 2 > SVG_W - MARGIN_R;
            fprintf(f, "<text class=\"peaklabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n",
                    right ? px - 8 : px, py - 10, right ? "end" : "middle", lab);
        }
    }

    /* Point names under the axis, slanted so neighbours never collide. */
    for (size_t i = 0; i < n; i++) {
        char lab[160];
        point_label(lab, sizeof lab, &s0->pts[i]);
        fprintf(f, "<text class=\"xlabel\" transform=\"translate(%.1f,%.1f) rotate(-30)\" text-anchor=\"end\">",
                XT(i) + 3, ybase + 14);
        xml_text(f, lab);
        fputs("</text>\n", f);
    }
    y = ybase + 110;
    if (c->nseries > 1) {
        double lx = MARGIN_L;
        for (size_t s = 0; s < c->nseries; s++) {
            const char *hex = vc_series_hex(s);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>", lx,
                    y - 4, lx + 18, y - 4, hex);
            fprintf(f, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">", lx + 24, y);
            xml_text(f, c->series[s].label);
            fputs("</text>\n", f);
            lx += 40 + text_w(c->series[s].label ? c->series[s].label : "", 12);
        }
        y += 10;
    }
    fputs("</g>\n", f);
    return y;
#undef XT
#undef YT
}

int vc_write_svg(FILE *f, const vc_chart *c)
{
    size_t *order = malloc((c->ncat ? c->ncat : 1) * sizeof *order);
    if (!order) return -1;
    size_t norder = vc_draw_order(c->cat_names, c->ncat, order);

    /* A timeline needs two points, and several series only when they share
     * their phases point by point (the x axis is the point index). */
    int timeline = c->nseries > 0 && c->series[0].n >= 2;
    for (size_t s = 1; timeline && s < c->nseries; s++)
        if (!same_phases(&c->series[0], &c->series[s])) timeline = 0;

    /* The body first, into memory: the height in the header is where it ends. */
    char *body = NULL;
    size_t body_len = 0;
    FILE *m = open_memstream(&body, &body_len);
    if (!m) {
        free(order);
        return -1;
    }
    fprintf(m, "<text class=\"h1\" x=\"%.1f\" y=\"30\">", MARGIN_L);
    xml_text(m, c->title);
    fputs("</text>\n", m);
    if (c->subtitle) {
        fprintf(m, "<text class=\"sub\" x=\"%.1f\" y=\"50\">", MARGIN_L);
        xml_text(m, c->subtitle);
        fputs("</text>\n", m);
    }
    double y = svg_bars(m, c, 86, order, norder);
    if (timeline) y = svg_timeline(m, c, y + 40);
    int bad = ferror(m);
    if (fclose(m) != 0 || bad || !body) {
        free(body);
        free(order);
        return -1;
    }
    double h = ceil(y + 16);

    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n<title>",
            SVG_W, h, SVG_W, h);
    xml_text(f, c->title);
    fputs("</title>\n<style>\n"
          ".h1{font-size:18px;font-weight:bold;fill:#1b1b1b}\n"
          ".h2{font-size:14px;font-weight:bold;fill:#1b1b1b}\n"
          ".sub{font-size:12px;fill:#444}\n"
          ".barlabel{font-size:12px;fill:#222}\n"
          ".seg{font-size:11px}\n"
          ".tick,.legend{font-size:12px;fill:#444}\n"
          ".note{font-size:11px;fill:#666}\n"
          ".xlabel{font-size:10.5px;fill:#444}\n"
          ".phaselabel{font-size:12px;font-weight:bold;fill:#555}\n"
          ".peaklabel,.caplabel,.totallabel,.barlabel{stroke:#ffffff;stroke-width:3px;paint-order:stroke;stroke-linejoin:round}\n"
          ".peaklabel{font-size:12px;font-weight:bold;fill:#d62728}\n"
          ".caplabel{font-size:11px;fill:#d62728}\n"
          ".totallabel{font-size:11px;fill:#555}\n"
          ".grid{stroke:#e3e3e3;stroke-width:1}\n"
          ".axis{stroke:#888;stroke-width:1}\n"
          ".capacity{stroke:#d62728;stroke-width:1.6;stroke-dasharray:6 4}\n"
          ".total{stroke:#555;stroke-width:1.2;stroke-dasharray:2 3}\n"
          ".phasesep{stroke:#b8b8b8;stroke-width:1;stroke-dasharray:3 3}\n"
          ".cat{stroke:#ffffff;stroke-width:0.6}\n"
          "</style>\n",
          f);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", SVG_W, h);
    fwrite(body, 1, body_len, f);
    fputs("</svg>\n", f);
    free(body);
    free(order);
    return ferror(f) ? -1 : 0;
}

