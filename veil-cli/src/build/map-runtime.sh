#!/usr/bin/env bash
# Builds the runtime image `veil map` starts on (run by `mvn package` in veil-cli):
#   map-runtime.sh JAVA_HOME OUT
# OUT becomes a Java runtime of only the modules `veil map` needs, made by JAVA_HOME's jlink, with
# its own class-data archive, and OUT.jvm a symbolic link to JAVA_HOME's java. The launcher starts
# `veil map` on OUT/bin/java only while the java on PATH is that same file (`test -ef`), so an
# updated or another JDK is never shadowed by a copy of an older one.
#
# Why: the JVM's start counts in `veil map`'s time to its first request, and with 8 modules instead
# of the JDK's 70 the module system boots faster (measured on a 2 vCPU AMD EPYC: 25 ms less of the
# time the server waits per run, lower in 9 of 12 interleaved pairs; docs/benchmarks-client.md).
# The modules: java.base and java.net.http (what jdeps finds in the client's code: the veil-core,
# veil-client, jackson-core and picocli jars and dev.veil.cli's map classes), and the modules the
# JDK loads as services at run time: EC curves for TLS (jdk.crypto.ec), charsets and locale data
# (jdk.charsets, jdk.localedata), the platform logger (java.logging), socket options (jdk.net),
# sun.misc (jdk.unsupported).
# A JDK without jlink or jmods (a JRE, some slim images) gets no image: `veil map` then runs on
# the JDK itself, as every other command does. Never fails the build.
set -uo pipefail
home="$1"
out="$2"
modules=java.base,java.net.http,jdk.crypto.ec,jdk.charsets,jdk.localedata,java.logging,jdk.net,jdk.unsupported
# Kept from the last build while it was made by this JDK's java and after this script changed.
if [ -x "$out/bin/java" ] && [ "$home/bin/java" -ef "$out.jvm" ] && [ "$out" -nt "${BASH_SOURCE[0]}" ]; then
  exit 0
fi
rm -rf "$out" "$out.tmp" "$out.jvm"
if [ ! -x "$home/bin/jlink" ] || [ ! -f "$home/jmods/java.base.jmod" ]; then
  echo "map-runtime: $home has no jlink or jmods; veil map will run on the JDK itself"
  exit 0
fi
if ! "$home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
    --output "$out.tmp" >"$out.log" 2>&1; then
  echo "map-runtime: jlink failed (see $out.log); veil map will run on the JDK itself"
  rm -rf "$out.tmp"
  exit 0
fi
# The image's own base archive of the JDK's classes: the archive `veil map` writes sits on it.
if ! "$out.tmp/bin/java" -Xshare:dump >>"$out.log" 2>&1; then
  echo "map-runtime: no class-data archive for the image (see $out.log); veil map will run on the JDK itself"
  rm -rf "$out.tmp"
  exit 0
fi
java="$(readlink -f "$home/bin/java")"
mv "$out.tmp" "$out" && touch "$out" && ln -s "$java" "$out.jvm"
rm -f "$out.log"
