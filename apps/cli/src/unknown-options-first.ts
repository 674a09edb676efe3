/**
 * Unknown options are reported before missing required ones. Commander checks required options
 * first, so `penguin run --mesage hi` said "required option -m" and never named the typo. Here
 * each command's required options are checked in a `preAction` hook instead, which commander
 * runs after its unknown-option check (whose message names the option given and, with
 * `showSuggestionAfterError`, the nearest known one). The message and error code of a missing
 * required option stay commander's own, so the exit-code mapping in main.ts is unchanged.
 * Only public commander API: `Option.mandatory`, `Command.options`, `hook`, `error`.
 */
import type { Command } from "commander";

export function unknownOptionsFirst(command: Command): void {
  const required = command.options.filter((option) => option.mandatory);
  if (required.length > 0) {
    for (const option of required) option.mandatory = false;
    command.hook("preAction", (_parent, actionCommand) => {
      if (actionCommand !== command) return;
      for (const option of required) {
        if (command.getOptionValue(option.attributeName()) === undefined) {
          command.error(`error: required option '${option.flags}' not specified`, { code: "commander.missingMandatoryOptionValue", exitCode: 1 });
        }
      }
    });
  }
  for (const sub of command.commands) unknownOptionsFirst(sub);
}
