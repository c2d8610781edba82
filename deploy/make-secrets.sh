#!/bin/sh
# Random secrets for deploy/compose.yaml, written owner-only under deploy/secrets/ (once).
set -eu
cd "$(dirname "$0")"
umask 077
mkdir -p secrets/bots
rand() { head -c 24 /dev/urandom | base64 | tr -d '/+=' ; }
[ -s secrets/postgres-password ] || rand > secrets/postgres-password
printf 'postgresql://arena:%s@postgres:5432/arena' "$(cat secrets/postgres-password)" > secrets/store-url
for bot in random station rules1 rules2; do
    [ -s "secrets/bots/$bot" ] || rand > "secrets/bots/$bot"
done
sh ./make-peer-certs.sh secrets/peer > /dev/null   # mutual TLS between the workers
# Compose mounts these files as they are: the arena containers run as uid 10001.
if [ "$(id -u)" = 0 ]; then
    chown -R 10001 secrets/bots secrets/store-url secrets/peer
else
    echo "the arena containers run as uid 10001: sudo chown -R 10001 $(pwd)/secrets/bots $(pwd)/secrets/store-url $(pwd)/secrets/peer"
fi
echo "secrets in $(pwd)/secrets (owner-only)"
