/* How the CLI reports a failure: the library's status and message, or a
 * usage mistake with a pointer to --help. Both mean exit status 2. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

int lib_error(int rc)
{
    fprintf(stderr, "vramest: %s: %s\n", vramest_status_string(rc), vramest_last_error_message());
    return EXIT_BAD;
}

int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("vramest: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'vramest --help'.\n", stderr);
    return EXIT_BAD;
}
