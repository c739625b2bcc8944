#!/usr/bin/env bash
# Sync over SSH against rsync over the same SSH server (issue 29 item 2): a library of N distinct
# small photos (default 2,000; copies of Samples/storm.jpg made distinct by a JPEG COM segment),
# then, interleaved, R times each (default 5), into a fresh destination every time:
#   photos  `photos --library PEER sync --from ssh://USER@127.0.0.1:PORT/OWNER` (changeset over
#           the connection: database, every original hashed and checked, applied and recorded)
#   rsync   `rsync -a -e SSH USER@127.0.0.1:OWNER/ExternalData/ DEST/` (the originals only)
# Both use one throw-away sshd on 127.0.0.1 that this script starts (its own host and client
# keys, public-key authentication only) and the same ssh command line. Prints each median and
# the ratio rsync/photos (above 1.0: photos faster).
#
# Usage: Benchmarks/sync-ssh.sh [--photos N] [--reps R] [--photos-bin PATH] [--keep DIR]
# Needs: /usr/sbin/sshd (openssh-server), ssh, rsync, python3, a built photos binary (default
# .build/release).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n=2000 reps=5
bin="$here/../.build/release/photos"
keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --photos) n=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --photos-bin) bin=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        *) echo "sync-ssh.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ -x "$bin" ] || { echo "sync-ssh.sh: no photos binary at $bin (swift build -c release)" >&2; exit 69; }
for tool in /usr/sbin/sshd ssh rsync python3; do
    command -v "$tool" >/dev/null || { echo "sync-ssh.sh: $tool is needed" >&2; exit 69; }
done
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
work=${keep:-$(mktemp -d)}
mkdir -p "$work"
sshd_pid=""
cleanup() {
    [ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null || true
    [ -z "$keep" ] && rm -rf "$work"
}
trap cleanup EXIT

# The sshd.
keys="$work/keys"
mkdir -p "$keys" && chmod 700 "$keys"
for port in $(seq 53222 53322); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
done
ssh-keygen -q -t ed25519 -N '' -f "$keys/host"
ssh-keygen -q -t ed25519 -N '' -f "$keys/id"
cp "$keys/id.pub" "$keys/authorized_keys"
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$keys/host.pub")" >"$keys/known_hosts"
printf '%s\n' "ListenAddress 127.0.0.1" "Port $port" "HostKey $keys/host" \
    "AuthorizedKeysFile $keys/authorized_keys" "PidFile $keys/sshd.pid" "PasswordAuthentication no" \
    "KbdInteractiveAuthentication no" "UsePAM no" "StrictModes no" "PermitRootLogin prohibit-password" \
    >"$keys/sshd_config"
if [ "$(id -u)" = 0 ]; then mkdir -p /run/sshd; fi
/usr/sbin/sshd -f "$keys/sshd_config" -E "$keys/sshd.log"
for _ in $(seq 50); do [ -s "$keys/sshd.pid" ] && break; sleep 0.1; done
sshd_pid=$(cat "$keys/sshd.pid")
user=$(id -un)
# One ssh command line for both (photos adds -p PORT from the address; rsync gets it here).
ssh_base="ssh -F /dev/null -i $keys/id -o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=$keys/known_hosts"

# The library.
python3 - "$here/../Samples/storm.jpg" "$work/in" "$n" <<'PY'
import os, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, 'rb').read()
os.makedirs(out, exist_ok=True)
for i in range(n):
    text = b'photos-sync-ssh-bench-%d' % i
    seg = b'\xff\xfe' + (len(text) + 2).to_bytes(2, 'big') + text
    open(os.path.join(out, 'p%05d.jpg' % i), 'wb').write(data[:2] + seg + data[2:])
PY
owner="$work/owner"
"$bin" --library "$owner" import -q "$work/in"
bytes=$(du -sb "$owner/ExternalData" | cut -f1)
echo "library: $n photos, $bytes bytes of originals; sshd on 127.0.0.1:$port"

seconds() { # command...: wall-clock seconds of one run
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}
photos_times=() rsync_times=()
for r in $(seq "$reps"); do
    rm -rf "$work/peer" "$work/rsync"
    "$bin" init -q "$work/peer"
    sync
    photos_times+=("$(seconds "$bin" --library "$work/peer" sync -q --from "ssh://$user@127.0.0.1:$port$owner" \
        --ssh-command "$ssh_base" \
        --remote-photos "$bin")")
    count=$("$bin" --library "$work/peer" list --json | wc -l)
    [ "$count" = "$n" ] || { echo "sync-ssh.sh: the peer has $count photos, not $n" >&2; exit 70; }
    mkdir -p "$work/rsync"
    sync
    rsync_times+=("$(seconds rsync -a -e "$ssh_base -p $port" "$user@127.0.0.1:$owner/ExternalData/" "$work/rsync/")")
    echo "rep $r: photos ${photos_times[-1]} s, rsync ${rsync_times[-1]} s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
mp=$(median "${photos_times[@]}") mr=$(median "${rsync_times[@]}")
printf 'median: photos sync --from ssh %.2f s, rsync -a %.2f s, ratio rsync/photos %.2f\n' "$mp" "$mr" \
    "$(echo "$mr / $mp" | bc -l)"
