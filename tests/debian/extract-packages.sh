#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Unpacks Debian packages and their whole dependency closure into a private folder, without
# touching the host: the host's own apt-get runs against an isolated apt state (own sources list,
# lists, cache, empty dpkg status, no host apt.conf.d), downloads only, and dpkg-deb -x unpacks.
# No debootstrap, no chroot, no maintainer scripts. Used for MySQL 9.7 from sid
# (tests/vitess/mysql/extract-sid-mysql.sh) and for an arm64 JRE that runs under qemu-user
# (scripts/aarch64-jvm-smoke.sh).
#
# usage: extract-packages.sh ROOT PACKAGE...
#   ROOT  absolute folder to create (replaced if it exists); ROOT.apt holds the private apt state
#         and the .debs while it runs (removed at the end; its logs are kept as ROOT.apt.log)
# env MIRROR  Debian mirror (default: the one the host's apt sources use)
#     SUITE   (default sid)   ARCH  Debian architecture (default amd64)
set -euo pipefail

ROOT=${1:?usage: $0 ROOT PACKAGE...}
shift
[ $# -gt 0 ] || { echo "usage: $0 ROOT PACKAGE..." >&2; exit 2; }
# The Debian mirror this host already uses (first URIs: of its deb822 sources, else sources.list).
host_debian_mirror() {
  local u=""
  [ -r /etc/apt/sources.list.d/debian.sources ] && u=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  [ -n "$u" ] || u=$(awk '$1=="deb"{for(i=2;i<=NF;i++) if ($i ~ /^https?:/){print $i; exit}}' /etc/apt/sources.list 2>/dev/null)
  printf '%s' "$u"
}
MIRROR=${MIRROR:-$(host_debian_mirror)}
[ -n "$MIRROR" ] || { echo "no Debian mirror found in the host's apt sources; set MIRROR" >&2; exit 2; }
SUITE=${SUITE:-sid}
ARCH=${ARCH:-amd64}
case "$ROOT" in /?*) ;; *) echo "ROOT must be an absolute path: $ROOT" >&2; exit 2;; esac

now_us() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }
T0=$(now_us); LAST=$T0
step() {
  local now; now=$(now_us)
  printf '[%4d.%02ds total | %4d.%02ds step] %s\n' \
    $(( (now-T0)/1000000 )) $(( (now-T0)%1000000/10000 )) \
    $(( (now-LAST)/1000000 )) $(( (now-LAST)%1000000/10000 )) "$*"
  LAST=$now
}

KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$KEYRING" ] || { echo "missing $KEYRING (package debian-archive-keyring)" >&2; exit 1; }

A=$ROOT.apt
rm -rf "$ROOT" "$ROOT.partial" "$A"
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/apt.conf.d" \
         "$A/sources.list.d" "$A/preferences.d"
: > "$A/status"
echo "deb [signed-by=$KEYRING] $MIRROR $SUITE main" > "$A/sources.list"
# Read first by apt (APT_CONFIG), so it can redirect Dir::Etc::Parts away from
# the host's /etc/apt/apt.conf.d (whose update hooks, e.g. appstream's, must not
# run for this foreign suite) and the main config file.
cat > "$A/apt.conf" <<EOF
Dir::Etc::Parts "$A/apt.conf.d";
Dir::Etc::Main "/dev/null";
Dir::Etc::SourceList "$A/sources.list";
Dir::Etc::SourceParts "$A/sources.list.d";
Dir::Etc::Preferences "$A/preferences";
Dir::Etc::PreferencesParts "$A/preferences.d";
Dir::State "$A";
Dir::State::Lists "$A/lists";
Dir::State::status "$A/status";
Dir::Cache "$A/cache";
Dir::Cache::archives "$A/cache/archives";
Dir::Log "$A";
APT::Architecture "$ARCH";
APT::Architectures { "$ARCH"; };
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
// the archive may be a snapshot mirror past its Release Valid-Until
Acquire::Check-Valid-Until "false";
Acquire::Check-Date "false";
EOF
export APT_CONFIG=$A/apt.conf
timeout 300 apt-get -q update > "$A/update.log" 2>&1 || { cat "$A/update.log"; exit 1; }
step "private apt-get update ($SUITE, $ARCH)"

timeout 600 apt-get -q -y install --download-only "$@" > "$A/download.log" 2>&1 \
  || { cat "$A/download.log"; exit 1; }
grep -E '^(Need to get|After this)' "$A/download.log" || true
step "apt-get install --download-only ($(ls "$A"/cache/archives/*.deb | wc -l) debs, $(du -sh "$A/cache/archives" | cut -f1))"

mkdir -p "$ROOT.partial"
for deb in "$A"/cache/archives/*.deb; do
  # docs, man pages and translations are not needed to run anything
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$ROOT.partial" \
    --exclude='./usr/share/doc/*' --exclude='./usr/share/man/*' \
    --exclude='./usr/share/locale/*' --exclude='./usr/share/lintian/*'
done
mv "$ROOT.partial" "$ROOT"
cat "$A/update.log" "$A/download.log" > "$ROOT.apt.log"
rm -rf "$A"    # private lists + cache + debs: not needed any more
step "unpacked into $ROOT ($(du -sh "$ROOT" | cut -f1))"
