#!/usr/bin/env bash
# Copyright 2026 The vitess-cdc Authors
# SPDX-License-Identifier: Apache-2.0
# Generates the TLS material of the cluster's TLS gates into DIR (openssl):
#   ca.pem, ca-key.pem          the cluster CA
#   server.pem, server-key.pem  VTGate's certificate, for localhost and 127.0.0.1
#   client.pem, client-key.pem  a client certificate for mutual TLS (CN cdc-client)
# usage: certs.sh DIR
set -euo pipefail
dir=${1:?usage: certs.sh DIR}
mkdir -p "$dir"
cd "$dir"
days=30

openssl req -x509 -newkey rsa:2048 -nodes -days "$days" -subj "/CN=vitess-cdc test cluster CA" \
  -keyout ca-key.pem -out ca.pem \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"

# leaf NAME SUBJECT_CN EXTENSIONS: a key and a certificate signed by the CA.
leaf() {
  local name=$1 cn=$2 ext=$3
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$cn" -keyout "$name-key.pem" -out "$name.csr"
  printf '%b' "$ext" > "$name.ext"
  openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days "$days" \
    -extfile "$name.ext" -out "$name.pem"
  rm -f "$name.csr" "$name.ext"
}
leaf server localhost "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
leaf client cdc-client "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
chmod 644 ./*.pem
