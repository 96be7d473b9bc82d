/* atoll: the command-line front end. Each subcommand lives in its own cmd_*.c file; this file
 * only dispatches and prints the top-level help. */
#include <stdio.h>
#include <string.h>

#include "atoll/error.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/native_cli.h"
#include "io/suggest.h"

#define ATOLL_COMMAND_ENTRY(name) &atoll_cmd_##name##_def,
static const atoll_subcommand *const commands[] = {ATOLL_COMMANDS(ATOLL_COMMAND_ENTRY)};
#undef ATOLL_COMMAND_ENTRY
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

/* "; did you mean 'X'?" when a command is near the mistyped one (io/suggest.c). */
static const char *command_hint(char *buf, size_t size, const char *typed) {
  const char *names[N_COMMANDS];
  for (int i = 0; i < N_COMMANDS; i++)
    names[i] = commands[i]->name;
  return atoll_suggest_text(buf, size, typed, names, N_COMMANDS);
}

static void print_help(FILE *out) {
  fprintf(out,
          "usage: atoll COMMAND [ARGS]\n"
          "\n"
          "atoll simulates and verifies real-time and best-effort DNN inference sharing one GPU.\n"
          "\n"
          "commands:\n");
  /* The summaries line up after the longest command name. */
  int width = 0;
  for (int i = 0; i < N_COMMANDS; i++)
    if ((int)strlen(commands[i]->name) > width)
      width = (int)strlen(commands[i]->name);
  for (int i = 0; i < N_COMMANDS; i++)
    fprintf(out, "  %-*s  %s\n", width, commands[i]->name, commands[i]->summary);
  fprintf(out,
          "\n"
          "options:\n"
          "  --help     this text ('atoll COMMAND --help' or 'atoll help COMMAND' for a command)\n"
          "  --version  print the version\n"
          "\n"
          "exit codes (every command):\n"
          "  0  ok\n"
          "  1  a checked bound or verification failed\n"
          "  2  bad input or usage\n"
          "  3  exploration incomplete\n"
          "  4  device or driver unavailable\n");
}

static int run(int argc, char **argv) {
  if (argc < 2) {
    print_help(stderr);
    return ATOLL_EXIT_BAD_INPUT;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    if (argc > 2 && strcmp(argv[1], "help") == 0) {
      for (int i = 0; i < N_COMMANDS; i++) {
        if (strcmp(commands[i]->name, argv[2]) == 0) {
          atoll_cli_print_help(commands[i], stdout);
          return ATOLL_EXIT_OK;
        }
      }
      char hint[96];
      fprintf(stderr, "atoll: unknown command '%s'%s\n", argv[2], command_hint(hint, sizeof hint, argv[2]));
      return ATOLL_EXIT_BAD_INPUT;
    }
    print_help(stdout);
    return ATOLL_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("atoll %s\n", ATOLL_VERSION);
    return ATOLL_EXIT_OK;
  }
  for (int i = 0; i < N_COMMANDS; i++)
    if (strcmp(commands[i]->name, argv[1]) == 0)
      return commands[i]->run(argc - 1, argv + 1);
  char hint[96];
  fprintf(stderr, "atoll: unknown command '%s'%s (see 'atoll --help')\n", argv[1], command_hint(hint, sizeof hint, argv[1]));
  return ATOLL_EXIT_BAD_INPUT;
}

int main(int argc, char **argv) {
  int rc = run(argc, argv);
  /* What a command printed may still sit in stdio's buffer: a full disk or a closed pipe loses it
   * here, and a command that exits 0 with its table or report missing would be trusted. */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    perror("atoll: writing standard output");
    return rc == ATOLL_EXIT_OK ? ATOLL_EXIT_BAD_INPUT : rc;
  }
  return rc;
}
