// `#available` in Swift (and `@available` in C) asks the runtime for the OS version through
// __isPlatformVersionAtLeast, which Apple's toolchains take from compiler-rt's libclang_rt.ios.a.
// The Linux toolchain has no compiler-rt for Darwin, so the app links this instead. It asks
// dyld the same question compiler-rt does, through libSystem's _availability_version_check
// (exported since iOS 13).
#include <stdbool.h>
#include <stdint.h>

// dyld's pair of platform and packed version (major << 16 | minor << 8 | patch).
typedef struct {
    uint32_t platform;
    uint32_t version;
} pepper_build_version;

extern bool _availability_version_check(uint32_t count, pepper_build_version versions[]);
extern uint32_t dyld_get_active_platform(void);

static uint32_t packed(uint32_t major, uint32_t minor, uint32_t patch) {
    return ((major & 0xffff) << 16) | ((minor & 0xff) << 8) | (patch & 0xff);
}

__attribute__((visibility("hidden"))) int32_t __isPlatformVersionAtLeast(uint32_t platform, uint32_t major, uint32_t minor,
                                                                          uint32_t patch) {
    pepper_build_version wanted = {platform, packed(major, minor, patch)};
    return _availability_version_check(1, &wanted);
}

// The older entry point, for the running platform.
__attribute__((visibility("hidden"))) int32_t __isOSVersionAtLeast(int32_t major, int32_t minor, int32_t patch) {
    return __isPlatformVersionAtLeast(dyld_get_active_platform(), (uint32_t)major, (uint32_t)minor, (uint32_t)patch);
}
