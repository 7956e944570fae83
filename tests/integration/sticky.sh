#!/bin/sh
# Checks from the host that guest users cannot harm each other's files in a
# sticky world-writable host directory.  tests/guest/fs_sticky.c makes the
# files natively (as uid 1234 and uid 65534) in a new 1777 directory, then
# attacks them inside vkernel; this script then looks at what the host has:
# each user's u<uid>.keep with its text, owner, one link and mtime at 10^9 s,
# its directory, FIFO and symlink, and no name an attacker made of them.
#
# usage: sticky.sh VKERNEL PROG CASE
#   bind_rw         vkernel as root, the directory bound rw on /mnt: both
#                   users attack, then the owners' and root's own operations
#   bind_rw_unpriv  vkernel run as host uid 65534 (asuser.sh), so its guest
#                   is uid 65534 and attacks uid 1234's files, through a bind
#   overlay_unpriv  the same through the overlay over the host's root
# In its own user namespace an unprivileged vkernel sees the files of ids
# it cannot map as owned by the overflow uid, 65534, which is its own
# here: so the unprivileged attacks run twice, with --userns=off, where
# the guest also checks each errno, then in that namespace with only the
# host's files checked.
#
# Exits 0 if the case passes, 1 if it fails (explained on stderr), 77
# (meson's "skipped") when not run as root or when uid 65534 cannot run the
# programs, 2 on a usage error.

set -u

if [ $# -ne 3 ]; then
	echo "usage: sticky.sh VKERNEL PROG CASE" >&2
	exit 2
fi
vkernel=$1
prog=$2
case=$3
failed=0

fail()
{
	echo "FAIL: sticky $case: $*" >&2
	failed=1
}

# As root, asuser.sh is uid 65534, the attacker fs_sticky.c expects.
unpriv()
{
	"$(dirname "$0")/asuser.sh" "$@"
}

# What the host must still have of uid $1's files.
check_victim()
{
	f=$dir/u$1.keep
	[ "$(cat "$f" 2>/dev/null)" = "keep-$1" ] || fail "$f: text changed"
	got=$(stat -c '%u %h %Y' "$f" 2>&1)
	[ "$got" = "$1 1 1000000000" ] || fail "$f: owner, links, mtime: $got"
	[ -d "$dir/u$1.dir" ] || fail "u$1.dir is gone"
	[ -p "$dir/u$1.fifo" ] || fail "u$1.fifo is gone"
	[ -L "$dir/u$1.sym" ] || fail "u$1.sym is gone"
}

# The victims' files belong to two users, and only root can make them:
# an ordinary user has no other user's files to attack.
if [ "$(id -u)" != 0 ]; then
	echo "skip: sticky $case: needs root, to make other users' files"
	exit 77
fi
case $case in
bind_rw|bind_rw_unpriv|overlay_unpriv) ;;
*)	echo "sticky.sh: no case $case" >&2; exit 2 ;;
esac
case $case in
*_unpriv)
	if ! unpriv test -x "$vkernel" -a -x "$prog" 2>/dev/null; then
		echo "skip: sticky $case: uid 65534 cannot run $vkernel, $prog"
		exit 77
	fi
	;;
esac

dir=$(mktemp -d /tmp/vk-sticky.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
chmod 1777 "$dir"
if ! "$prog" --setup "$dir" >/dev/null; then
	echo "FAIL: sticky $case: making the files natively" >&2
	exit 1
fi

case $case in
bind_rw)
	"$vkernel" run --bind "$dir:/mnt:rw" -- "$prog" --attack /mnt ||
		fail "attacks (status $?)"
	"$vkernel" run --bind "$dir:/mnt:rw" -- "$prog" --own /mnt ||
		fail "own operations (status $?)"
	;;
bind_rw_unpriv)
	unpriv "$vkernel" run --userns=off --bind "$dir:/mnt:rw" -- "$prog" \
	    --attack /mnt || fail "attacks (status $?)"
	unpriv "$vkernel" run --bind "$dir:/mnt:rw" -- "$prog" --attack /mnt \
	    >/dev/null 2>&1
	;;
overlay_unpriv)
	unpriv "$vkernel" run --userns=off -- "$prog" --attack "$dir" ||
		fail "attacks (status $?)"
	unpriv "$vkernel" run -- "$prog" --attack "$dir" >/dev/null 2>&1
	;;
esac

check_victim 1234
check_victim 65534
for f in "$dir"/*.stolen "$dir"/*.lkeep "$dir"/*.lfifo "$dir"/*.lsym; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	fail "an attacker made $f"
done
exit $failed
