# Sourced by the GPU-machine scripts (with $top the checkout): a Vulkan
# loader where the machine has none, from Debian's libvulkan1 packages in
# .gl/ next to the checkout (doc/architecture.md), and NVIDIA's driver for it.
if ! ldconfig -p 2>/dev/null | grep -q libvulkan.so.1 && [ -d "$top/.gl" ]; then
    for f in "$top"/.gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
