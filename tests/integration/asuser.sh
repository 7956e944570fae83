#!/bin/sh
# Runs a command as an unprivileged host user, for the tests that must
# also pass with vkernel run by an ordinary user: as uid and gid 65534
# with no supplementary groups (setpriv) when the caller is root, and as
# the caller itself otherwise, which is already such a user.  This is the
# one way the tests drop to that user.  Skips (status 77) when root has
# no setpriv.
#
# usage: asuser.sh COMMAND [ARG...]
if [ "$(id -u)" != 0 ]; then
	exec "$@"
fi
if ! command -v setpriv >/dev/null; then
	echo "skip: no setpriv to drop to uid 65534"
	exit 77
fi
exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
