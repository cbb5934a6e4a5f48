package dev.veil.cli.map;

import dev.veil.testing.AdminCli;
import dev.veil.testing.Http;
import dev.veil.testing.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The server the {@code veil map} tests map through: a real {@code veil serve} process on a fresh
 * embedded store under {@code dir} with 256 salt buckets (so that a rotation of a fraction touches
 * many rows), its admin key, and a client with the MAPPER role. The test class closes {@link
 * #server} when it is done.
 */
final class MappingServer {
  final ServerProcess server;
  final Http http;
  final String adminKey;
  final String mapperKey;

  private MappingServer(ServerProcess server, String adminKey, String mapperKey) {
    this.server = server;
    this.http = new Http(server.baseUrl());
    this.adminKey = adminKey;
    this.mapperKey = mapperKey;
  }

  static MappingServer start(Path dir) throws Exception {
    Path data = dir.resolve("data");
    ServerProcess server = ServerProcess.start(data, "--set", "salt.buckets=256");
    String adminKey = Files.readString(data.resolve("admin.key")).strip();
    String mapperKey = AdminCli.createClient(server.grpcPort(), adminKey, "collector", "MAPPER");
    return new MappingServer(server, adminKey, mapperKey);
  }
}
