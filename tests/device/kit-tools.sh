# Sourced by the GPU-machine scripts: unpack_tools KIT_BIN DEST unpacks the
# kit's compressed ffmpeg and ffprobe (tests/device/make_kit.sh) into DEST,
# with xz or, on a machine without it, Python's lzma.
unpack_tools() {
    mkdir -p "$2"
    for t in ffmpeg ffprobe; do
        xz -dc "$1/$t.xz" > "$2/$t" 2>/dev/null ||
            python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
                "$1/$t.xz" "$2/$t" || return 1
        chmod +x "$2/$t"
    done
}
