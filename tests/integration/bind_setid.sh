#!/bin/sh
# Owners and set-id bits of the files a guest makes through a read-write
# bind, checked from the host.  The guest program tests/guest/fs_setid.c
# runs in a sticky world-writable host directory bound on /mnt, as root and
# dropping to users 1234 and 65534; it makes set-id files and directories,
# chmods, chowns and writes them, and tries creates that must fail.  Then
# the host's stat must show: every file owned by the uid that made it as
# vkernel maps guest ids to host ids, set-id bits only on a file whose host
# owner is the guest user that made it (never a set-uid root file a guest
# user made), no file left by a create that failed, and the modes and ids
# the guest saw.
#
# usage: bind_setid.sh VKERNEL PROG CASE
#   root    vkernel run by host root: guest uid N is host uid N.
#   user    vkernel run by an unprivileged host user (asuser.sh: 65534
#           when this runs as root, else this user): so is the guest, and
#           every file is that user's.
#   userns  vkernel run as root of a user namespace of that user
#           (unshare -r): guest root is that user, and no other guest uid
#           has a host id, so that vkernel cannot give files away.
#
# Exits 0 if the case passes, 1 if it fails (each failure explained on
# stderr), 77 (skipped) when the root case does not run as root (only
# root can give files away) or the host lacks unshare or user
# namespaces, 2 on a usage error.

set -u
[ $# -eq 3 ] || { echo "usage: bind_setid.sh VKERNEL PROG CASE" >&2; exit 2; }
vkernel=$1
prog=$2
case=$3
failed=0

fail()
{
	echo "FAIL: bind_setid $case: $*" >&2
	failed=1
}

skip()
{
	echo "skip: bind_setid $case: $*"
	exit 77
}

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
# The user runs copies of the programs, from a directory it may enter.
chmod 755 "$tmp"
mkdir "$tmp/bin" && cp "$vkernel" "$prog" "$tmp/bin/" || exit 2
chmod 755 "$tmp/bin" "$tmp/bin/"*
vk=$tmp/bin/$(basename "$vkernel")
pg=$tmp/bin/$(basename "$prog")
h=$tmp/bind
mkdir "$h" && chmod 1777 "$h" || exit 2

as_user="$(dirname "$0")/asuser.sh"
user=$($as_user id -u) || skip "no unprivileged user to run as"
case $case in
root)
	[ "$(id -u)" = 0 ] || skip "needs host root, who gives files away"
	run=
	owner_arg= ;;
user)
	run=$as_user
	owner_arg=$user ;;
userns)
	command -v unshare >/dev/null || skip "no unshare"
	$as_user unshare -r true 2>/dev/null || skip "no user namespaces"
	run="$as_user unshare -r"
	# The guest sees its files owned by its root, the namespace's.
	owner_arg=0 ;;
*)
	echo "bind_setid.sh: unknown case $case" >&2
	exit 2 ;;
esac

# The host uid a guest uid maps to here, or "none".
host_uid()
{
	case $case in
	root) echo "$1" ;;
	user) [ "$1" = "$user" ] && echo "$user" || echo none ;;
	userns) [ "$1" = 0 ] && echo "$user" || echo none ;;
	esac
}

# $run is a command prefix: split on purpose.
# shellcheck disable=SC2086
$run "$vk" run --bind "$h:/mnt:rw" -- "$pg" /mnt $owner_arg \
    </dev/null >"$tmp/out" 2>"$tmp/err"
status=$?
[ $status -eq 0 ] || { fail "the guest's checks failed ($status)"; \
    head -n 20 "$tmp/err" >&2; }

left=$(find "$h" -name 'fail-*')
[ -z "$left" ] || fail "creates that failed left $left"

for f in "$h"/*; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	name=$(basename "$f")
	maker=${name%%-*}
	# shellcheck disable=SC2046
	set -- $(stat -c '%a %u %g %F' "$f")
	mode=$1 uid=$2
	want=$(host_uid "$maker")
	[ "$want" = none ] && want=$user
	[ "$uid" = "$want" ] || fail "$name is owned by $uid on the host," \
	    "want $want"
	[ "$4" = directory ] && continue
	# The set-id bits: 4000 and 2000 of the octal mode stat prints.
	if [ $((0$mode & 06000)) -ne 0 ] &&
	    [ "$(host_uid "$maker")" != "$uid" ]; then
		fail "$name made by guest uid $maker is set-id ($mode) and" \
		    "host uid $uid's"
	fi
	if [ $((0$mode & 04000)) -ne 0 ] && [ "$uid" = 0 ] &&
	    [ "$maker" != 0 ]; then
		fail "$name is a set-uid root file made by guest uid $maker"
	fi
done

# The guest's view is the host's: modes always, ids where they are one.
grep '^L ' "$tmp/out" >"$tmp/list"
[ -s "$tmp/list" ] || fail "the guest listed no files"
while read -r _ name mode uid gid; do
	set -- $(stat -c '%a %u %g' "$h/$name" 2>/dev/null)
	[ "$mode" = "${1:-}" ] || fail "$name: the guest sees mode $mode," \
	    "the host has ${1:-nothing}"
	[ "$case" = userns ] && continue
	[ "$uid $gid" = "${2:-} ${3:-}" ] || fail "$name: the guest sees" \
	    "$uid:$gid, the host has ${2:-}:${3:-}"
done <"$tmp/list"
exit $failed
