#!/bin/sh
# Runs a command as the unprivileged host user 65534 (setpriv), for the
# tests that must also pass with vkernel run by an ordinary user.  Skips
# (status 77) when the caller is not root or has no setpriv.
#
# usage: asuser.sh COMMAND [ARG...]
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "skip: not root, or no setpriv"
	exit 77
fi
exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
