#!/usr/bin/env bash
# Installs the Debian packages a step needs, when missing and when we may (root or sudo).
#   system-deps.sh venv     python3-venv (to create the virtualenv)
#   system-deps.sh run      + mariadb-server and prometheus-node-exporter (make run's demo server)
#   system-deps.sh test     + chromium and sysbench (the test suite)
#   system-deps.sh bench    + prometheus-mysqld-exporter (bench/peer_cost.py's peer)
set -euo pipefail
mode=${1:-venv}
need=()
have() { command -v "$1" >/dev/null || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }
python3 -c "import venv, ensurepip" 2>/dev/null || need+=(python3-venv)
if [ "$mode" != venv ]; then
  have mariadbd || need+=(mariadb-server)
  have prometheus-node-exporter || need+=(prometheus-node-exporter)
fi
if [ "$mode" = test ] || [ "$mode" = bench ]; then
  have chromium || need+=(chromium)
  have sysbench || need+=(sysbench)
fi
if [ "$mode" = bench ]; then
  have prometheus-mysqld-exporter || need+=(prometheus-mysqld-exporter)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
  echo "Missing Debian packages: ${need[*]}. Install them with: apt-get install ${need[*]}" >&2
  [ "$mode" = run ] && exit 0  # make run goes on without its demo server
  exit 1
fi
echo "Installing Debian packages: ${need[*]}"
$sudo apt-get update -qq
# Debian's packages start their own services where systemd runs; the project starts its own, privately.
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
