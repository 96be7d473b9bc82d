/* commands.h — the one list of atoll's subcommands, in the order `atoll --help` shows them.
 * X(NAME) names the entry atoll_cmd_NAME_def (cli.h: atoll_subcommand) that cmd_NAME.c defines;
 * main.c builds its dispatch table from this list and cli.h declares the entries from it, so a new
 * command is its file and one word here (docs/howto/add-a-command.md). */
#ifndef ATOLL_TOOLS_COMMANDS_H
#define ATOLL_TOOLS_COMMANDS_H

#define ATOLL_COMMANDS(X)                                                                                          \
  X(sim) X(capacity) X(sweep) X(compare) X(check) X(gen) X(import) X(model) X(dot) X(calibrate) X(bound) X(explore) X(selftest)      \
      X(native) X(hil) X(train_predictor) X(fit) X(predict)

#endif
