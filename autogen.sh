#!/bin/sh
# Generate ./configure and Makefile.in (needs autoconf, automake, pkg-config).
set -e
cd "$(dirname "$0")"
autoreconf -fi
