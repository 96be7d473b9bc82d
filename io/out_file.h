/* An output file that appears whole or not at all: a run that fails half-way leaves the file it
 * would have replaced as it was. The text goes to a temporary file beside the destination, renamed
 * over it once complete. What the name stands for is kept: "-" is standard output; through a
 * symbolic link the link's target is replaced and the link stays; a device or a FIFO is written in
 * place (no rename can replace one, and replacing /dev/null with a file would be wrong). */
#ifndef ATOLL_IO_OUT_FILE_H
#define ATOLL_IO_OUT_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

typedef struct atoll_out_file {
  FILE *f;
  const char *path;         /* as given, for messages */
  char target[PATH_MAX];    /* what the rename replaces: path, or its link's target */
  char tmp[PATH_MAX + 32];  /* the temporary file; "" when writing in place */
} atoll_out_file;

/* Opens path for writing. Returns 0, or ATOLL_EINVAL (the temporary file's name would be too long:
 * nothing was touched; errno ENAMETOOLONG) or ATOLL_EIO (it could not be created), errno saying why
 * in both: perror(path) reports either. */
int atoll_out_file_open(atoll_out_file *o, const char *path);
/* Closes the file; when ok and every byte was written, commits it (the rename). Otherwise the
 * temporary file is removed and the destination is as before. Returns 0 when committed, else
 * ATOLL_EIO (with errno from the failing call when ok). */
int atoll_out_file_close(atoll_out_file *o, bool ok);

#endif
