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
echo "secrets in $(pwd)/secrets (owner-only)"
