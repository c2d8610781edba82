#!/bin/sh
# Mutual TLS between arena workers (the relays of bots' seats): a CA of the league's own and one
# worker certificate it signs (subjectAltName DNS:arena-worker, for server and client use).
#   deploy/make-peer-certs.sh DIR   ->  DIR/ca.crt, DIR/ca.key, DIR/worker.crt, DIR/worker.key
# Everything is written owner-only; existing files are kept. Give the workers ca.crt, worker.crt and
# worker.key (arena worker --peer-ca --peer-cert --peer-key); keep ca.key off the workers.
set -eu
dir=${1:?usage: make-peer-certs.sh DIR}
name=${ARENA_PEER_NAME:-arena-worker}
days=${ARENA_PEER_DAYS:-825}
umask 077
mkdir -p "$dir"
cd "$dir"
if [ ! -s ca.crt ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key \
        -out ca.crt -days "$days" -subj "/CN=arena workers CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        2>/dev/null
fi
if [ ! -s worker.crt ]; then
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout worker.key \
        -out worker.csr -subj "/CN=$name" 2>/dev/null
    printf 'subjectAltName=DNS:%s\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n' \
        "$name" > worker.ext
    openssl x509 -req -in worker.csr -CA ca.crt -CAkey ca.key -set_serial "0x$(openssl rand -hex 16)" \
        -days "$days" -extfile worker.ext -out worker.crt 2>/dev/null
    rm -f worker.csr worker.ext
fi
echo "peer certificates in $(pwd) (owner-only): ca.crt worker.crt worker.key (ca.key stays here)"
