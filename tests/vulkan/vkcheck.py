"""The Khronos validation layer around the Vulkan tests' ffmpeg runs.

    import vkcheck
    val = vkcheck.Validation(ft)   # before the first run
    ...                            # every ft.run / ft.ffmpeg is watched
    val.report(tap)                # one check: no validation message

Where VK_LAYER_KHRONOS_validation is installed (Debian:
vulkan-validationlayers), every command the test runs gets it through
VK_INSTANCE_LAYERS, and its messages (which it prints on stdout, one line
each) are collected from the output.  Without it, report() prints one
SKIP line saying so.  FSSIM_VULKAN_VALIDATION=0 turns it off.
"""
import glob
import os
import re

LAYER = "VK_LAYER_KHRONOS_validation"
MESSAGE = re.compile(r"VUID-|Validation Error|Validation Warning|"
                     r"Validation Performance Warning")

# Messages that FFmpeg's own Vulkan code triggers, not fssim's: every
# dispatch on a frame that hwupload filled is reported as reading a
# SHADER_READ_ONLY_OPTIMAL descriptor of an image still in
# TRANSFER_DST_OPTIMAL, although the image barrier recorded just before it
# (ff_vk_frame_barrier, from the layout FFmpeg keeps in AVVkFrame) makes
# that transition.  FFmpeg's scale_vulkan gets the very same pair on the
# same frames (hwupload,scale_vulkan) with validation layers 1.3.239, so it
# is filtered by its exact text: any other layout, and any other VUID,
# still fails.  02699 is the pointer to it ("See previous error callback").
# At submission the same frames give the two UNASSIGNED messages below
# (the image expected in SHADER_READ_ONLY_OPTIMAL is in TRANSFER_DST_OPTIMAL;
# a barrier from VK_QUEUE_FAMILY_IGNORED to family 0 read as an ownership
# acquire with no release): scale_vulkan on uploaded frames gets both too.
KNOWN_FFMPEG = [
    re.compile(r"UNASSIGNED-CoreValidation-DrawState-InvalidImageLayout.*to be in layout "
               r"VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL--instead, current layout is "
               r"VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL"),
    re.compile(r"UNASSIGNED-VkImageMemoryBarrier-image-00004.*acquiring ownership of VkImage "
               r".*from srcQueueFamilyIndex 4294967295 to dstQueueFamilyIndex 0 has no "
               r"matching release barrier"),
    # hwupload of odd-width P010 (35x19): FFmpeg's upload copies the chroma
    # plane from a buffer offset that is not a multiple of its 4-byte texels
    # (hwupload alone gets it; fssim_vulkan copies nothing).
    re.compile(r"VUID-vkCmdCopyBufferToImage-(bufferOffset-01558|pRegions-07273).*"
               r"vkCmdCopyBufferToImage: pRegion\[0\] bufferOffset \S+ must be a multiple "
               r"of (this format's|the blocked image's) texel (block )?size \(4\)"),
    re.compile(r"VUID-VkDescriptorImageInfo-imageLayout-00344.*specific layout "
               r"VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL that doesn't match the previously "
               r"used layout VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL"),
    re.compile(r"VUID-vkCmdDispatch-None-02699.*doesn't match actual image layout at time "
               r"descriptor is used\. See previous error callback"),
]


def layer_installed():
    dirs = []
    for var in ("VK_LAYER_PATH", "VK_ADD_LAYER_PATH"):
        dirs += [d for d in os.environ.get(var, "").split(os.pathsep) if d]
    for base in (os.environ.get("XDG_DATA_HOME", ""), "/usr/local/share", "/usr/share",
                 "/etc"):
        if base:
            dirs.append(os.path.join(base, "vulkan", "explicit_layer.d"))
    for d in dirs:
        for path in glob.glob(os.path.join(d, "*.json")):
            try:
                with open(path) as f:
                    if '"%s"' % LAYER in f.read():
                        return True
            except OSError:
                pass
    return False


def add_layers(env, layers):
    """VK_INSTANCE_LAYERS of env with layers added (first: nearest to ffmpeg)."""
    have = [x for x in env.get("VK_INSTANCE_LAYERS", "").split(":") if x]
    env["VK_INSTANCE_LAYERS"] = ":".join(list(layers) + [x for x in have if x not in layers])
    return env


def messages(text):
    """The validation messages in a command's output, FFmpeg's own left out."""
    return [line.strip() for line in text.splitlines()
            if MESSAGE.search(line) and not any(k.search(line) for k in KNOWN_FFMPEG)]


class Validation:
    def __init__(self, ft):
        self.ft = ft
        self.runs = 0
        self.found = []       # (command, message)
        self.filtered = 0
        self.why_not = None
        if os.environ.get("FSSIM_VULKAN_VALIDATION", "") == "0":
            self.why_not = "FSSIM_VULKAN_VALIDATION=0"
        elif not layer_installed():
            self.why_not = "%s not installed (Debian: vulkan-validationlayers)" % LAYER
        if self.why_not:
            return
        add_layers(os.environ, [LAYER])
        run = ft.run

        def watched(args, *a, **kw):
            p = run(args, *a, **kw)
            self.check(args, p.stdout + p.stderr)
            return p
        ft.run = watched

    @property
    def active(self):
        return self.why_not is None

    def check(self, args, text):
        """Record the messages in one command's output; returns them."""
        self.runs += 1
        every = [x for x in text.splitlines() if MESSAGE.search(x)]
        found = messages(text)
        self.filtered += len(every) - len(found)
        cmd = " ".join(str(a) for a in args)
        self.found += [(cmd, m) for m in found]
        return found

    def report(self, tap, what="ffmpeg runs"):
        if not self.active:
            tap.skip("Khronos validation layer: no message in any run", self.why_not)
            return
        diag = []
        for cmd, m in self.found[:6]:
            diag += ["in: " + cmd[-400:], "  " + m[:1500]]
        tap.ok(not self.found, "Khronos validation layer: no message over %d %s "
               "(%d of FFmpeg's own known ones left out)" % (self.runs, what, self.filtered),
               "%d messages, first ones:\n%s" % (len(self.found), "\n".join(diag)))
