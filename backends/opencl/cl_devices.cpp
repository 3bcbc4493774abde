// cl_devices.cpp: walks every platform and device once, reading the names, versions and limits.
#include "backends/opencl/cl_devices.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/compute_capability.h"
#include "backends/device_watchdog.h"
#include "backends/opencl/cl_build.h"
#include "backends/opencl/cl_check.h"
#include "backends/opencl/cl_svm.h"
#include "backends/watched_call.h"
#include "common/domain/error.h"

namespace cc::opencl {

namespace {

constexpr const char* kNoPlatform =
    "no OpenCL platform found: install an OpenCL driver (e.g. apt-get install pocl-opencl-icd) and check "
    "/etc/OpenCL/vendors";

// Why clGetPlatformIDs found nothing. With no .icd file there is no driver; with some, the loader could
// not load any of them, and a low open-file or address-space limit is the usual cause (under
// ulimit -v 500000 PoCL's LLVM does not fit, and "install a driver" sent the user the wrong way).
std::string no_platform_reason() {
  const char* vendors_override = std::getenv("OCL_ICD_VENDORS");  // ocl-icd reads its directory from here
  const std::filesystem::path vendors =
      vendors_override && *vendors_override ? vendors_override : "/etc/OpenCL/vendors";
  int icd_files = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(vendors, error))
    icd_files += entry.path().extension() == ".icd";
  if (icd_files == 0) return kNoPlatform;
  std::vector<std::string> limits;
  constexpr rlim_t kLowOpenFiles = 64;                   // the loader, its drivers and their libraries
  constexpr rlim_t kLowAddressSpace = rlim_t{4} << 30;  // a driver's compiler (PoCL's LLVM) maps hundreds of MB
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < kLowOpenFiles)
    limits.push_back(fmt::format("the open-file limit (ulimit -n) is {}", limit.rlim_cur));
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < kLowAddressSpace)
    limits.push_back(fmt::format("the address-space limit (ulimit -v) is {} MB", limit.rlim_cur >> 20));
  return fmt::format("no OpenCL platform could be loaded (the ICD loader found {} .icd file{} in {} but none "
                     "loaded){}",
                     icd_files, icd_files == 1 ? "" : "s", printable(vendors.string()),
                     limits.empty() ? ": check that the libraries they name are installed"
                                    : fmt::format("; {}: raise {}", fmt::join(limits, ", "),
                                                  limits.size() == 1 ? "it" : "them"));
}

const char* file_type_name(std::filesystem::file_type type) {
  using std::filesystem::file_type;
  switch (type) {
    case file_type::directory: return "a folder";
    case file_type::fifo: return "a FIFO";
    case file_type::socket: return "a socket";
    case file_type::character: return "a character device";
    case file_type::block: return "a block device";
    default: return "not a regular file";
  }
}

// The ICD loader opens each .icd file of its vendor folder, and each library OCL_ICD_FILENAMES names,
// with a blocking open and read, and no call returns before it has: a FIFO there would hold even --list
// for good. So each, where it is there at all, must be a regular file (stat follows links and opens nothing).
void check_loader_files() {
  namespace fs = std::filesystem;
  const auto refuse_unless_regular = [](const fs::path& file, const char* named_by) {
    std::error_code error;
    const fs::file_status status = fs::status(file, error);
    if (error || status.type() == fs::file_type::regular || status.type() == fs::file_type::not_found) return;
    throw InputError(fmt::format("{}: {} is {}, not a regular file: the OpenCL ICD loader would block opening it; "
                                 "remove it{}",
                                 named_by, printable(file.string()), file_type_name(status.type()),
                                 std::string_view(named_by).starts_with("OCL_") ? fmt::format(" or point {} elsewhere", named_by)
                                                                                : std::string()));
  };
  const char* vendors_override = std::getenv("OCL_ICD_VENDORS");
  const bool overridden = vendors_override && *vendors_override;
  const fs::path vendors = overridden ? vendors_override : "/etc/OpenCL/vendors";
  const char* named_by = overridden ? "OCL_ICD_VENDORS" : "the OpenCL vendor folder";
  std::error_code error;
  if (fs::is_directory(vendors, error)) {
    for (const auto& entry : fs::directory_iterator(vendors, error))
      if (entry.path().extension() == ".icd") refuse_unless_regular(entry.path(), named_by);
  } else if (overridden) {
    refuse_unless_regular(vendors, named_by);  // ocl-icd also takes one .icd file here
  }
  if (const char* libraries = std::getenv("OCL_ICD_FILENAMES"); libraries && *libraries) {
    std::string list = libraries;
    for (std::size_t start = 0, end; start <= list.size(); start = end + 1) {
      end = std::min(list.find(':', start), list.size());
      if (end > start) refuse_unless_regular(list.substr(start, end - start), "OCL_ICD_FILENAMES");
    }
  }
}

// Drivers pad names with spaces (and some with a NUL the C++ wrapper keeps).
std::string trimmed(std::string text) {
  const auto last = text.find_last_not_of(std::string(" \t\n\r\0", 5));
  text.erase(last == std::string::npos ? 0 : last + 1);
  const auto first = text.find_first_not_of(" \t");
  return first == std::string::npos ? std::string() : text.substr(first);
}

std::string device_type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

// "OpenCL C 1.2 pocl" -> 120; 0 when the text does not say.
int opencl_c_version(const std::string& text) {
  int major = 0, minor = 0;
  if (std::sscanf(text.c_str(), "OpenCL C %d.%d", &major, &minor) != 2) return 0;
  return 100 * major + 10 * minor;
}

// The -D for emulated sub-groups where CONVCOMPARE_TEST_SUB_GROUPS asks for them, else "". For the tests
// alone (tests/opencl/test_sub_groups.cpp): they run kernels_cl/shuffle.cl with --kernel-dir under
// tests/opencl/sub_group_emulation.cl on devices without sub-groups, in a layout the value names: "along-x"
// (a sub-group is a row of the work-group) or W, 1 to 64 (W work-items to a sub-group in linear order).
std::string emulated_sub_groups_define() {
  const char* setting = std::getenv("CONVCOMPARE_TEST_SUB_GROUPS");
  if (setting == nullptr || *setting == '\0') return "";
  const std::string layout = setting;
  if (layout == "along-x") return "-DCC_SHUFFLE_EMULATED -DCC_EMULATED_ALONG_X";
  int size = 0;
  char extra = 0;
  if (std::sscanf(layout.c_str(), "%d%c", &size, &extra) != 1 || size < 1 || size > 64)
    throw InputError(fmt::format("CONVCOMPARE_TEST_SUB_GROUPS={}: expected along-x or a sub-group size of 1 to 64",
                                 layout));
  return fmt::format("-DCC_SHUFFLE_EMULATED -DCC_EMULATED_SUB_GROUP_SIZE={}", size);
}

// The sub-group size of emulated matrix products where CONVCOMPARE_TEST_MATRIX asks for them, else 0. For
// the tests alone (tests/opencl/test_sub_groups.cpp): they run kernels_cl/tensor.cl's Intel path
// with --kernel-dir under tests/opencl/matrix_emulation.cl on devices without those products, with 8 or
// 16 lanes to a sub-group, the two sizes the extension's built-ins take.
int emulated_matrix_sub_group() {
  const char* setting = std::getenv("CONVCOMPARE_TEST_MATRIX");
  if (setting == nullptr || *setting == '\0') return 0;
  const std::string lanes = setting;
  if (lanes != "8" && lanes != "16")
    throw InputError(fmt::format("CONVCOMPARE_TEST_MATRIX={}: expected a sub-group size of 8 or 16", printable(lanes)));
  return std::stoi(lanes);
}

// The sizes the plan checks: memory, one allocation, local and constant memory, work-groups, images. Returns
// the work-item sizes of all three dimensions, for the report.
std::vector<std::size_t> read_sizes(DeviceLimits& limits, const cl::Device& device) {
  limits.memory = CC_CL_OUT(device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>(err));
  limits.max_allocation = CC_CL_OUT(device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(err));
  limits.on_chip_bytes = CC_CL_OUT(device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>(err));
  limits.on_chip_default = limits.on_chip_bytes;
  limits.constant_bytes = CC_CL_OUT(device.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>(err));
  limits.max_group = CC_CL_OUT(device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>(err));
  std::vector<std::size_t> item_sizes = CC_CL_OUT(device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>(err));
  item_sizes.resize(3, 1);  // 3 dimensions is the spec's minimum; be safe against less
  limits.max_group_x = item_sizes[0];
  limits.max_group_y = item_sizes[1];
  if (CC_CL_OUT(device.getInfo<CL_DEVICE_IMAGE_SUPPORT>(err)) != CL_TRUE)
    limits.missing[Capability::Images] = "device has no image support (CL_DEVICE_IMAGE_SUPPORT is false)";
  limits.image_max_width = CC_CL_OUT(device.getInfo<CL_DEVICE_IMAGE2D_MAX_WIDTH>(err));
  limits.image_max_height = CC_CL_OUT(device.getInfo<CL_DEVICE_IMAGE2D_MAX_HEIGHT>(err));
  return item_sizes;
}

// What --memory mapped, managed and managed-faults are on this device, and whether it may run them.
void read_host_memory(DeviceLimits& limits, const cl::Device& device) {
  // --memory mapped and managed (README.md, --memory): the buffers are the host's own only where the device
  // says it shares host memory; elsewhere the driver decides, and may copy at each unmap and map.
  cl_bool unified = CL_FALSE;
  if (clGetDeviceInfo(device(), CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified), &unified, nullptr) != CL_SUCCESS)
    unified = CL_FALSE;  // deprecated in 2.0: a driver may no longer answer
  const std::string handover =
      unified == CL_TRUE
          ? "the device shares host memory (CL_DEVICE_HOST_UNIFIED_MEMORY): no copy, h2d / d2h are the unmap and "
            "map commands (none where the runtime queues nothing for them)"
          : "the device does not share host memory (CL_DEVICE_HOST_UNIFIED_MEMORY false): the driver may copy at "
            "unmap (h2d) and map (d2h) or reach host memory over the host link inside the kernel's time";
  limits.mapped_note = "mapped: CL_MEM_ALLOC_HOST_PTR buffers, no upload or download by copy; " + handover +
                       "; the kernel's time holds whatever host-link traffic it makes: not alike with a copy's";
  limits.no_managed = svm_refusal(device, SvmGrain::Coarse);
  limits.managed_note = "managed: coarse-grained SVM (clSVMAlloc); " + handover;
  limits.no_managed_faults = svm_refusal(device, SvmGrain::Fine);
  limits.managed_faults_note =
      std::string("managed-faults: fine-grained buffer SVM (CL_MEM_SVM_FINE_GRAIN_BUFFER), no map or unmap: the host "
                  "writes and reads it between commands; no h2d / d2h; ") +
      (unified == CL_TRUE ? "the device shares host memory (CL_DEVICE_HOST_UNIFIED_MEMORY): the kernel works in it"
                          : "the device does not share host memory (CL_DEVICE_HOST_UNIFIED_MEMORY false): the runtime "
                            "moves or reaches the pages on demand inside the kernel's time");
}

// The limits' names in OpenCL's words, for the skip reasons.
void name_limits(DeviceLimits& limits) {
  limits.memory_name = "CL_DEVICE_GLOBAL_MEM_SIZE";
  limits.allocation_name = "CL_DEVICE_MAX_MEM_ALLOC_SIZE";
  limits.on_chip_name = "local memory (CL_DEVICE_LOCAL_MEM_SIZE)";
  limits.constant_name = fmt::format("CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE ({} bytes)", limits.constant_bytes);
  limits.image_name = "CL_DEVICE_IMAGE2D_MAX_WIDTH/HEIGHT";
  limits.group_name = "CL_KERNEL_WORK_GROUP_SIZE";
}

// Faults of an implementation that no query finds out and that end the process: recognised by the
// platform's name and version (docs/portability.md, "Implementation faults").
void note_known_faults(DeviceLimits& limits, const std::string& platform_version) {
  // OpenCL C 1.2's wait_group_events takes a pointer to private events; PoCL 5.0's kernel library has
  // only the generic-address-space one, so a kernel calling it fails to link when first launched and
  // PoCL aborts the process (seen on the GPU host's PoCL 5.0+debian; Debian 12's 3.1 links it; the
  // specification's ambiguity: KhronosGroup/OpenCL-Docs#472). Not something a try can find out safely.
  char pocl_release[32] = {};  // "5.0+debian"
  if (std::sscanf(platform_version.c_str(), "OpenCL %*d.%*d PoCL %31s", pocl_release) == 1 && pocl_release[0] == '5' &&
      pocl_release[1] == '.') {
    limits.missing[Capability::AsyncCopies] =
        fmt::format("PoCL {}'s kernel library cannot link wait_group_events on a private event list (OpenCL C "
                    "1.2's form): the kernel would abort the process", pocl_release);
    // Its work-group compiler fails an assertion on fast's RGBA8 kernels (seen at r = 1 and 5 to 32, with
    // the channel loop's barrier at its top or end, rolled or unrolled; one channel and f32 build):
    // docs/portability.md, "Implementation faults".
    limits.no_fast_rgba8 = fmt::format(
        "PoCL {}'s work-group compiler aborts the process building fast's RGBA8 kernel (Kernel.cc: "
        "createParallelRegionBefore: region_entry_barrier != NULL); one channel, separable and tiled run here",
        pocl_release);
  }
}

// CL_DEVICE_EXTENSIONS, read once per device, asked by name.
class Extensions {
 public:
  explicit Extensions(const cl::Device& device)
      : names_(" " + CC_CL_OUT(device.getInfo<CL_DEVICE_EXTENSIONS>(err)) + " ") {}
  bool offers(std::string_view name) const { return names_.find(fmt::format(" {} ", name)) != std::string::npos; }

 private:
  std::string names_;  // space-separated, with a space at each end so that every name is found whole
};

// Which sub-group shuffle the shuffle variant's kernel calls here, if any.
void read_sub_groups(DeviceLimits& limits, const Extensions& extensions) {
  // Sub-group shuffles (the shuffle variant): the Khronos extension, whose functions need
  // cl_khr_subgroups' sub-groups under -cl-std=CL1.2, or Intel's, which brings both. The kernel reads
  // the sub-group size at run time, so no size is asked for here (kernels_cl/shuffle.cl).
  if (std::string emulated = emulated_sub_groups_define(); !emulated.empty()) limits.lane_shuffle_define = emulated;
  else if (extensions.offers("cl_khr_subgroup_shuffle") && extensions.offers("cl_khr_subgroups"))
    limits.lane_shuffle_define = "-DCC_SHUFFLE_KHR";
  else if (extensions.offers("cl_intel_subgroups")) limits.lane_shuffle_define = "-DCC_SHUFFLE_INTEL";
  else
    limits.missing[Capability::LaneShuffles] = "the device offers no sub-group shuffle (CL_DEVICE_EXTENSIONS has "
                                               "neither cl_khr_subgroup_shuffle with cl_khr_subgroups nor "
                                               "cl_intel_subgroups)";
}

// Intel's sub-group matrix products (the tensor variant's other path, kernels_cl/tensor.cl's
// CC_TENSOR_INTEL): their built-ins exist for the device's smallest sub-group size only, 8 (DG2, Arc)
// or 16 (Ponte Vecchio), which the kernel requires (cl_intel_required_subgroup_size lists the sizes).
// The product's shape, or why not.
std::string read_intel_matrix(DeviceLimits& limits, const cl::Device& device, const Extensions& extensions) {
  constexpr cl_device_info kSubGroupSizesIntel = 0x4108;  // CL_DEVICE_SUB_GROUP_SIZES_INTEL
  if (!extensions.offers("cl_intel_required_subgroup_size") || !extensions.offers("cl_intel_subgroups"))
    return "the device offers cl_intel_subgroup_matrix_multiply_accumulate without cl_intel_subgroups and "
           "cl_intel_required_subgroup_size, which its kernel needs to require the sub-group size";
  std::size_t bytes = 0;
  CC_CL(clGetDeviceInfo(device(), kSubGroupSizesIntel, 0, nullptr, &bytes));
  std::vector<std::size_t> sizes(bytes / sizeof(std::size_t));
  if (!sizes.empty()) CC_CL(clGetDeviceInfo(device(), kSubGroupSizesIntel, bytes, sizes.data(), nullptr));
  if (sizes.empty()) return "the device lists no sub-group size (CL_DEVICE_SUB_GROUP_SIZES_INTEL)";
  const std::size_t smallest = *std::min_element(sizes.begin(), sizes.end());
  if (smallest != 8 && smallest != 16)
    return fmt::format("Intel's sub-group matrix products take sub-groups of 8 or 16, the device's smallest; this "
                       "device's smallest is {}", smallest);
  limits.tensor_product = tensor_intel_product(static_cast<int>(smallest));
  return "";
}

// Tensor cores (the tensor variant): OpenCL C has no matrix product, so the kernel says it in inline PTX,
// which NVIDIA's OpenCL compiles; cl_nv_device_attribute_query gives the compute capability mma.sync
// .tf32 needs (8.0). On Intel's devices with sub-group matrix products it calls those
// (read_intel_matrix). Elsewhere a reasoned skip (docs/memory-spaces.md, "Tensor cores").
void read_tensor_cores(DeviceLimits& limits, const cl::Device& device, const Extensions& extensions) {
  constexpr cl_device_info kComputeCapabilityMajorNv = 0x4000;  // CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
  constexpr cl_device_info kComputeCapabilityMinorNv = 0x4001;
  if (const int lanes = emulated_matrix_sub_group(); lanes != 0) {
    limits.tensor_product = tensor_intel_product(lanes);
    limits.tensor_emulated = true;
    return;
  }
  if (extensions.offers("cl_intel_subgroup_matrix_multiply_accumulate")) {
    limits.missing[Capability::TensorCores] = read_intel_matrix(limits, device, extensions);
    return;
  }
  if (!extensions.offers("cl_nv_device_attribute_query")) {
    limits.missing[Capability::TensorCores] =
        "OpenCL C has no tensor-core matrix product; this variant's inline PTX (mma.sync .tf32) builds on NVIDIA's "
        "OpenCL only, its bf16 sub-group products on Intel's devices with "
        "cl_intel_subgroup_matrix_multiply_accumulate";
    return;
  }
  cl_uint major = 0, minor = 0;
  CC_CL(clGetDeviceInfo(device(), kComputeCapabilityMajorNv, sizeof major, &major, nullptr));
  CC_CL(clGetDeviceInfo(device(), kComputeCapabilityMinorNv, sizeof minor, &minor, nullptr));
  limits.missing[Capability::TensorCores] =
      compute_capability_lacks(Capability::TensorCores, static_cast<int>(major), static_cast<int>(minor));
}

// The device's lines of the report (DeviceInfo), its limits already read.
// The platform's texts discovery reads once.
struct PlatformTexts {
  std::string name;     // "Portable Computing Language", "rusticl"
  std::string version;  // CL_PLATFORM_VERSION: "OpenCL 3.0 PoCL 5.0+debian ..."
};

void describe_info(DeviceInfo& info, const DeviceLimits& limits, int platform_index, int device_index,
                   const PlatformTexts& platform, const cl::Device& device, const std::string& c_version,
                   const std::vector<std::size_t>& item_sizes) {
  const bool image_support = limits.missing[Capability::Images].empty();
  // Local memory of type CL_GLOBAL is emulated in global memory (CPU drivers): tiling buys nothing there.
  const bool local_is_global = CC_CL_OUT(device.getInfo<CL_DEVICE_LOCAL_MEM_TYPE>(err)) == CL_GLOBAL;
  info.backend = "opencl";
  info.id = fmt::format("opencl:{}:{}", platform_index, device_index);
  info.name = fmt::format("{} ({})", trimmed(CC_CL_OUT(device.getInfo<CL_DEVICE_NAME>(err))),
                          platform.name);
  info.properties = {
      {"type", device_type_name(CC_CL_OUT(device.getInfo<CL_DEVICE_TYPE>(err)))},
      {"platform version", platform.version},
      {"device version", trimmed(CC_CL_OUT(device.getInfo<CL_DEVICE_VERSION>(err)))},
      {"OpenCL C version", c_version},
      {"driver version", trimmed(CC_CL_OUT(device.getInfo<CL_DRIVER_VERSION>(err)))},
      {"compute units", std::to_string(CC_CL_OUT(device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>(err)))},
      {"max clock MHz", std::to_string(CC_CL_OUT(device.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>(err)))},
      {"global memory", format_bytes(limits.memory)},
      {"max allocation", format_bytes(limits.max_allocation)},
      {"local memory", format_bytes(limits.on_chip_bytes) + (local_is_global ? " (emulated in global memory)" : "")},
      {"constant buffer", format_bytes(limits.constant_bytes)},
      {"max work-group size", std::to_string(limits.max_group)},
      {"max work-item sizes", fmt::format("{}", fmt::join(item_sizes, "x"))},
      {"image support", image_support ? "yes" : "no"},
      {"largest image2d", fmt::format("{}x{}", limits.image_max_width, limits.image_max_height)},
      {"sub-group shuffle", limits.lane_shuffle_define == "-DCC_SHUFFLE_KHR"     ? "cl_khr_subgroup_shuffle"
                            : limits.lane_shuffle_define == "-DCC_SHUFFLE_INTEL" ? "cl_intel_subgroups"
                            : limits.lane_shuffle_define.empty()                ? "none"
                                                                                 : "emulated for the tests"},
  };
  info.compute_units = static_cast<int>(CC_CL_OUT(device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>(err)));
  info.global_memory_bytes = static_cast<double>(limits.memory);
  info.cache_bytes = static_cast<double>(CC_CL_OUT(device.getInfo<CL_DEVICE_GLOBAL_MEM_CACHE_SIZE>(err)));
}

ClDevice describe(int platform_index, int device_index, const cl::Platform& platform, const cl::Device& device) {
  ClDevice found;
  found.device = device;
  const PlatformTexts texts{trimmed(CC_CL_OUT(platform.getInfo<CL_PLATFORM_NAME>(err))),
                            trimmed(CC_CL_OUT(platform.getInfo<CL_PLATFORM_VERSION>(err)))};
  const std::vector<std::size_t> item_sizes = read_sizes(found.limits, device);
  read_host_memory(found.limits, device);
  name_limits(found.limits);
  note_known_faults(found.limits, texts.version);
  const Extensions extensions(device);
  read_sub_groups(found.limits, extensions);
  read_tensor_cores(found.limits, device, extensions);
  if (texts.name == "rusticl") found.kernel_local_memory_overstated = 2;
  const std::string c_version = trimmed(CC_CL_OUT(device.getInfo<CL_DEVICE_OPENCL_C_VERSION>(err)));
  found.c_version = opencl_c_version(c_version);
  describe_info(found.info, found.limits, platform_index, device_index, texts, device, c_version, item_sizes);
  return found;
}

}  // namespace

std::string format_bytes(unsigned long long bytes) {
  constexpr const char* kUnits[] = {"bytes", "KB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} bytes", bytes);
  return value == std::floor(value) ? fmt::format("{:.0f} {}", value, kUnits[unit])
                                    : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

namespace {

// Why `platform` listed no device, past the status: the C++ wrapper turns CL_DEVICE_NOT_FOUND into an empty
// list and CL_SUCCESS, and PoCL lists none when it cannot make its kernel cache directory, which it says
// only on its debug output ("no device (CL_SUCCESS)" was all the user saw).
std::string no_device_reason(const cl::Platform& platform, cl_int found) {
  if (found != CL_SUCCESS)
    return fmt::format("{}{}", error_name(found),
                       found == CL_OUT_OF_HOST_MEMORY ? ": " + out_of_memory_advice() : std::string());
  std::string name;
  platform.getInfo(CL_PLATFORM_NAME, &name);
  const char* cache = std::getenv("POCL_CACHE_DIR");
  if (name.find("Portable Computing Language") != std::string::npos && cache && *cache) {
    namespace fs = std::filesystem;
    std::error_code error;
    std::string problem;
    if (fs::exists(cache, error) && !fs::is_directory(cache, error))
      problem = "it is not a directory";
    else if (fs::create_directories(cache, error); error)
      problem = error.message();
    else if (::access(cache, W_OK | X_OK) != 0)
      problem = std::strerror(errno);
    if (!problem.empty())
      return fmt::format("CL_DEVICE_NOT_FOUND: PoCL cannot use POCL_CACHE_DIR '{}' ({}), and lists no device "
                         "without its kernel cache",
                         printable(cache), problem);
  }
  return "CL_DEVICE_NOT_FOUND";
}

// discover_devices's work, in its driver stage.
Discovery discover_now() {
  Discovery discovery;
  std::vector<cl::Platform> platforms;
  check_loader_files();
  // The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR when /etc/OpenCL/vendors names no driver.
  const cl_int status = cl::Platform::get(&platforms);
  if (status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && platforms.empty())) {
    discovery.unavailable_reason = no_platform_reason();
    return discovery;
  }
  if (status != CL_SUCCESS) {
    discovery.unavailable_reason =
        fmt::format("listing OpenCL platforms failed: clGetPlatformIDs returned {} ({})", error_name(status), status);
    return discovery;
  }

  std::vector<std::string> problems;
  for (int p = 0; p < static_cast<int>(platforms.size()); ++p) {
    std::vector<cl::Device> devices;
    const cl_int found = platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    if (found != CL_SUCCESS || devices.empty()) {
      // Under ulimit -v PoCL alone answered CL_OUT_OF_HOST_MEMORY here (280-300 MB).
      problems.push_back(fmt::format("platform {}: no device ({})", p, no_device_reason(platforms[p], found)));
      continue;
    }
    for (int d = 0; d < static_cast<int>(devices.size()); ++d) {
      try {
        discovery.devices.push_back(describe(p, d, platforms[p], devices[d]));
      } catch (const ApiError& error) {
        problems.push_back(fmt::format("device opencl:{}:{}: {}", p, d, error.what()));
      }
    }
  }
  if (discovery.devices.empty())
    discovery.unavailable_reason = fmt::format("no usable OpenCL device: {}", fmt::join(problems, "; "));
  return discovery;
}

}  // namespace

Discovery discover_devices() {
  // PoCL starts its threads here (an abort: tools/convcompare/main.cpp's line), and a driver may throw
  // std::bad_alloc through clGetPlatformIDs under ulimit -v: DriverStage::run names the stage. A loader
  // or driver that never returns (a library that is a FIFO, a hung kernel module) is waited for on a
  // thread of its own, within CONVCOMPARE_LOAD_TIMEOUT.
  constexpr std::string_view kStage = "loading the OpenCL drivers and listing their devices";
  const WatchLimit limit = load_limit();
  return DriverStage::run(kStage, [&] {
    auto found = std::make_shared<Discovery>();
    run_watched(kStage, limit, [found] { *found = discover_now(); });
    return std::move(*found);
  });
}

}  // namespace cc::opencl
