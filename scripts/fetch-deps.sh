#!/bin/sh
# Fetch the build-time header packages that Debian 12 ships too old for
# FFmpeg 9.0 (Vulkan headers >= 1.3.277, SPIR-V headers, ffnvcodec >= 12.1)
# from Debian trixie into a build-local prefix.  Nothing outside PREFIX is
# touched: apt runs with a private state/cache/sources directory and the
# packages are unpacked with dpkg -x, never installed.
#
# usage: fetch-deps.sh PREFIX [PACKAGE...]
set -eu

prefix=${1:?usage: fetch-deps.sh PREFIX [PACKAGE...]}
shift
[ $# -gt 0 ] || set -- libvulkan-dev spirv-headers libffmpeg-nvenc-dev
suite=${FSSIM_DEPS_SUITE:-trixie}

for tool in apt-get dpkg; do
    command -v $tool >/dev/null 2>&1 || {
        echo "fetch-deps: '$tool' not found: this helper needs a Debian-like system." >&2
        echo "fetch-deps: install Vulkan headers >= 1.3.277, SPIRV-Headers and ffnvcodec >= 12.1.14 by hand" >&2
        echo "fetch-deps: and point PKG_CONFIG_PATH at them." >&2
        exit 1
    }
done

# The mirror is the one the system already uses for Debian's main archive.
mirror=${FSSIM_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
             awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) { print $i; exit } }' |
             grep -v security | head -n 1 || true)
fi
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
             awk '/^URIs:/ { print $2 }' | grep -v security | head -n 1 || true)
fi
: "${mirror:=http://deb.debian.org/debian}"

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
state=$prefix/.apt
mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/debs"
if [ -r "$keyring" ]; then
    echo "deb [signed-by=$keyring] $mirror $suite main" > "$state/sources.list"
else
    echo "deb $mirror $suite main" > "$state/sources.list"
fi

apt_opts="-o Dir::State=$state -o Dir::State::Lists=$state/lists \
 -o Dir::State::status=/dev/null -o Dir::Cache=$state/cache \
 -o Dir::Etc::SourceList=$state/sources.list -o Dir::Etc::SourceParts=/dev/null \
 -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
 -o APT::Get::List-Cleanup=0 -o Debug::NoLocking=1"

echo "fetch-deps: fetching $* from $mirror $suite into $prefix"
# shellcheck disable=SC2086
apt-get -q $apt_opts update >"$state/update.log" 2>&1 || {
    cat "$state/update.log" >&2
    echo "fetch-deps: could not read the $suite package lists from $mirror" >&2
    exit 1
}
# shellcheck disable=SC2086
(cd "$state/debs" && apt-get -q $apt_opts download "$@")

for deb in "$state"/debs/*.deb; do
    dpkg -x "$deb" "$prefix"
done

# The .pc files name /usr as their prefix: make them point into PREFIX.
find "$prefix/usr" -name '*.pc' | while read -r pc; do
    sed -i "s|^prefix=.*|prefix=$prefix/usr|" "$pc"
done
echo "fetch-deps: done"
