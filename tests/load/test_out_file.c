/* io/out_file.h, the output files of import, dot and idem_checker: a file appears whole or not at
 * all, and what the name stands for is kept. The cases are what the writers it replaced got wrong:
 * a symbolic link was replaced by a file, a device by a file (as root, `-o /dev/full`), and a
 * failed import to a 4,095-character path deleted the file there (the temporary name, cut to fit,
 * was the path itself), and a replaced file took the umask's mode. */
#include "tests/atoll_test.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atoll/error.h"
#include "io/out_file.h"

static char dir[64];

static int make_dir(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/atoll_out_file_XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

static void expect_text(const char *path, const char *want) {
  char got[64] = "";
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(got, 1, sizeof got - 1, f);
  got[n] = '\0';
  fclose(f);
  assert_string_equal(got, want);
}

/* Nothing but the named files in dir: no temporary file left behind. */
static void expect_no_tmp(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "ls -a %s | grep -q '\\.tmp\\.'", dir);
  assert_int_not_equal(system(cmd), 0);
}

static void written_whole_or_not_at_all(void **state) {
  (void)state;
  char path[128];
  snprintf(path, sizeof path, "%s/out.yaml", dir);
  put(path, "before\n");
  atoll_out_file o;
  assert_int_equal(atoll_out_file_open(&o, path), 0);
  fputs("half", o.f);
  expect_text(path, "before\n"); /* nothing reaches the name until the commit */
  assert_int_equal(atoll_out_file_close(&o, false), ATOLL_EIO);
  expect_text(path, "before\n");
  assert_int_equal(atoll_out_file_open(&o, path), 0);
  fputs("after\n", o.f);
  assert_int_equal(atoll_out_file_close(&o, true), 0);
  expect_text(path, "after\n");
  expect_no_tmp();
}

/* A replaced file keeps its permissions: the rename put a 0666 & ~umask file in a 0440 one's place. */
static void a_replaced_file_keeps_its_mode(void **state) {
  (void)state;
  char path[128];
  snprintf(path, sizeof path, "%s/mode.yaml", dir);
  put(path, "before\n");
  assert_int_equal(chmod(path, 0440), 0);
  atoll_out_file o;
  assert_int_equal(atoll_out_file_open(&o, path), 0);
  fputs("after\n", o.f);
  assert_int_equal(atoll_out_file_close(&o, true), 0);
  expect_text(path, "after\n");
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0440);
  expect_no_tmp();
}

static void a_link_stays_a_link(void **state) {
  (void)state;
  char target[128], link[128];
  snprintf(target, sizeof target, "%s/target.txt", dir);
  snprintf(link, sizeof link, "%s/link.dot", dir);
  put(target, "old\n");
  assert_int_equal(symlink("target.txt", link), 0);
  atoll_out_file o;
  assert_int_equal(atoll_out_file_open(&o, link), 0);
  fputs("new\n", o.f);
  assert_int_equal(atoll_out_file_close(&o, true), 0);
  struct stat st;
  assert_int_equal(lstat(link, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  expect_text(target, "new\n");
  expect_no_tmp();
}

static void a_device_is_written_in_place(void **state) {
  (void)state;
  atoll_out_file o;
  assert_int_equal(atoll_out_file_open(&o, "/dev/null"), 0);
  assert_string_equal(o.tmp, "");
  fputs("anything\n", o.f);
  assert_int_equal(atoll_out_file_close(&o, true), 0);
  struct stat st;
  assert_int_equal(stat("/dev/null", &st), 0);
  assert_true(S_ISCHR(st.st_mode));
}

static void a_long_path_keeps_its_file(void **state) {
  (void)state;
  /* Folders of 200 characters down to a file whose path is 4,095 characters long. */
  char path[PATH_MAX];
  size_t at = (size_t)snprintf(path, sizeof path, "%s", dir);
  while (at + 1 + 200 < 4095 - 16) {
    path[at++] = '/';
    memset(path + at, 'd', 200);
    at += 200;
    path[at] = '\0';
    assert_int_equal(mkdir(path, 0700), 0);
  }
  path[at++] = '/';
  memset(path + at, 'f', 4095 - at);
  path[4095] = '\0';
  put(path, "keep\n");
  atoll_out_file o;
  if (atoll_out_file_open(&o, path) == 0) /* a temporary name, when one fits, must not be path */
    assert_int_equal(atoll_out_file_close(&o, false), ATOLL_EIO);
  expect_text(path, "keep\n");
  /* Past PATH_MAX no temporary name fits: refused, with the errno perror reports. */
  char longer[PATH_MAX + 8];
  memset(longer, 'x', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  errno = 0;
  assert_int_equal(atoll_out_file_open(&o, longer), ATOLL_EINVAL);
  assert_int_equal(errno, ENAMETOOLONG);
}

static int remove_dir(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(written_whole_or_not_at_all),
      cmocka_unit_test(a_link_stays_a_link),
      cmocka_unit_test(a_replaced_file_keeps_its_mode),
      cmocka_unit_test(a_device_is_written_in_place),
      cmocka_unit_test(a_long_path_keeps_its_file),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
