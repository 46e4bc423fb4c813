#!/usr/bin/env bash
# Installs the Debian packages a step needs, when missing and when we may (root or sudo).
#   system-deps.sh venv          python3-venv (for `make run` and `make test`)
#   system-deps.sh test          + mariadb-server and chromium (for the test suite)
set -euo pipefail
need=()
python3 -c "import venv, ensurepip" 2>/dev/null || need+=(python3-venv)
if [ "${1:-venv}" = test ]; then
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
  command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || need+=(chromium)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
  echo "Missing Debian packages: ${need[*]}. Install them with: apt-get install ${need[*]}" >&2; exit 1
fi
echo "Installing Debian packages: ${need[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# Debian starts the packaged MariaDB; the project starts its own, so leave the system one alone.
