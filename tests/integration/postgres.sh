#!/bin/sh
# PostgreSQL inside vkernel: initdb, pg_ctl start, a table made, filled
# and read through psql over a socket in /tmp, pg_ctl stop.  initdb
# refuses root, so a root guest drops to uid 65534 first (python3).
# usage: postgres.sh VKERNEL
set -u
vkernel=$1
bin=/usr/lib/postgresql/15/bin
[ -x $bin/initdb ] || { echo "skip: no PostgreSQL 15"; exit 77; }
tmp=$(mktemp -d /tmp/vk-pg.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"
cat >"$tmp/run.sh" <<EOS
set -e
$bin/initdb -D $tmp/d -U pg --auth=trust >/dev/null
$bin/pg_ctl -D $tmp/d -l $tmp/log -o "-k $tmp -c listen_addresses=" -w start >/dev/null
$bin/psql -h $tmp -U pg -d postgres -At -c "CREATE TABLE t (a int, b text)" \
    -c "INSERT INTO t VALUES (1, 'one'), (2, 'two')" -c "SELECT a, b FROM t ORDER BY a"
$bin/pg_ctl -D $tmp/d -m fast -w stop >/dev/null
EOS
set -- /bin/sh "$tmp/run.sh"
[ "$(id -u)" != 0 ] || set -- /usr/bin/python3 -c '
import os, sys
os.setgroups([]); os.setresgid(65534, 65534, 65534)
os.setresuid(65534, 65534, 65534); os.execv(sys.argv[1], sys.argv[1:])' "$@"
out=$("$vkernel" run --quiet -- "$@" 2>"$tmp/err")
want=$(printf 'CREATE TABLE\nINSERT 0 2\n1|one\n2|two')
if [ "$out" != "$want" ]; then
	echo "FAIL: postgres: got '$out'" >&2
	cat "$tmp/err" "$tmp/log" >&2 2>/dev/null
	exit 1
fi
echo "ok: postgres"
