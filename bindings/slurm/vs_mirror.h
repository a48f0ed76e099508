/* Reading a user's model file or directory inside slurmctld.
 *
 * libvramest's file readers refuse FIFOs, devices and links out of a model
 * directory, but they open files by path, as the controller, after the
 * plugin's check (vs_safepath) - the name could be swapped in between - and
 * they know nothing of the site's allowed directories or the job's user. So
 * the plugin copies what the readers read - config.json and index files
 * whole, the 8-byte length and JSON header of each .safetensors, the first
 * max_model_bytes of each .gguf - from the descriptors vs_safepath checked
 * into a private directory (mode 0700, under $TMPDIR or /tmp), each copy
 * extended to its original size as a sparse file, checks that the shards an
 * index names are plain file names of its directory, and lets the library
 * parse that copy. The user's paths are never opened by the library, and the
 * copy is deleted before the call returns. */
#ifndef VS_MIRROR_H
#define VS_MIRROR_H

#include <stddef.h>
#include <stdint.h>

#include <vramest/vramest.h>

#include "vs_conf.h"
#include "vs_safepath.h"

/* Parse the checked file or directory `f` (opened by vs_open_checked for
 * `who`) into `model`. kind: VRAMEST_SRC_AUTO or the kind a spec names.
 * Returns 0, or -1 with a message that names the path but never shows the
 * file's contents (libvramest's own parse messages quote them, so they are
 * reduced to the status name). */
int vs_model_from_file(const vs_conf *c, const vs_who *who, const vs_file *f, vramest_source kind,
                       vramest_model *model, char *err, size_t cap);

/* A fingerprint of the files in a checked directory that the parsers would
 * read (name, device, inode, size, mtime of each; symlinks by their
 * targets), for the model cache: a file edited in place leaves the
 * directory's own mtime alone. Stats only, opens nothing but the listing. */
int vs_dir_fingerprint(const vs_file *dir, uint64_t *out, char *err, size_t cap);

#endif
