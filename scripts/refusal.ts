/**
 * Operator commands refuse with one line, not a stack trace: whatever stops a command (a running
 * service, a missing file, a locked or damaged database) is printed as `<command>: <reason>` on
 * stderr and the exit status is 1. Set CLI_TRACE=1 to see the stack when debugging.
 */
export function refuseInOneLine(command: string): void {
  const refuse = (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${command}: ${reason.split("\n")[0]}\n`);
    if (process.env.CLI_TRACE === "1" && error instanceof Error && error.stack)
      process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  };
  process.on("uncaughtException", refuse);
  process.on("unhandledRejection", refuse);
}
