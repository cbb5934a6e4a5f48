package dev.veil.cli;

import dev.veil.cli.admin.AdminOptions;
import dev.veil.cli.admin.AuditCommand;
import dev.veil.cli.admin.ClientCommand;
import dev.veil.cli.admin.CommandGroup;
import dev.veil.cli.admin.DeductionCommand;
import dev.veil.cli.admin.KeysCommand;
import dev.veil.cli.admin.OptOutCommand;
import dev.veil.cli.admin.SaltsCommand;
import dev.veil.cli.admin.SitesCommand;
import dev.veil.cli.admin.WebhooksCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code veil admin ...}: administers a running server over its admin gRPC API. The connection
 * options ({@code --host}, {@code --port}, {@code --key}, {@code --json}) may be given here or
 * after any subcommand. Exit codes: 0 ok, 1 the server refused (its status is printed), 2 usage, 3
 * cannot connect (nothing answered, or HTTP without gRPC, such as the public HTTP port).
 */
@Command(
    name = "admin",
    description = "Administer a running Veil server over its admin gRPC API.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:ok",
      "1:the server refused the request",
      "2:usage error",
      "3:cannot connect (or the port answered HTTP, not gRPC)"
    },
    subcommands = {
      ClientCommand.class,
      KeysCommand.class,
      SitesCommand.class,
      SaltsCommand.class,
      OptOutCommand.class,
      WebhooksCommand.class,
      AuditCommand.class,
      DeductionCommand.class
    })
public final class AdminCommand extends CommandGroup {
  @Mixin AdminOptions connection;
}
