// test_inputs.cpp: hostile inputs through the convcompare binary: FIFOs, pipes, devices, bombs, lying headers, bad checksums, path errors.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cfloat>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
// Declarations only: the implementation is compiled once, in common/domain/stb_impl.cpp.
#include <stb/stb_image_write.h>

#include "common/domain/image_io.h"
#include "tests/hostile/hostile_support.h"
#include "tests/support/image_files.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace cc::hostile;
using cc::test::TempDir;
using cc::test::write_binary;

namespace {

// Several commands at once: the FIFO cases each wait out the writer timeout, so they share the wait.
std::vector<CommandResult> run_together(const std::vector<std::vector<std::string>>& commands) {
  std::vector<std::future<CommandResult>> running;
  for (const auto& args : commands) running.push_back(std::async(std::launch::async, [args] { return convcompare(args); }));
  std::vector<CommandResult> results;
  for (auto& result : running) results.push_back(result.get());
  return results;
}

// A 64x48 grey ramp, the image most cases start from.
int ramp(int x, int y, int = 0) { return (x * 3 + y * 5) % 256; }

std::string ramp_png() {
  return cc::test::png_file(cc::test::PngSpec(64, 48, 8, 0, cc::test::png_rows(64, 48, 1, ramp)));
}

// Runs the identity filter over `image` into `out` and returns the reference it wrote (the input, read
// back through the project's own loader), so a case can check the pixels it got.
cc::Image identity_result(const CommandResult& result, const TempDir& dir) {
  check_validated(result);
  return cc::load_image(dir / "out/identity_zero_reference.png");
}

}  // namespace

TEST_CASE("hangs: a FIFO with no writer as image, filter file, baseline or kernel source is refused within seconds") {
  TempDir dir("hostile");
  REQUIRE(mkfifo((dir / "fifo").c_str(), 0600) == 0);
  std::vector<std::vector<std::string>> commands = {run_args({"--image", dir / "fifo"}),
                                                    run_args({"--size", "32x16", "--filter", "file:" + dir / "fifo"}),
                                                    run_args({"--size", "32x16", "--compare", dir / "fifo"})};
  if (backend() == "opencl") {
    fs::create_directory(dir / "kernels");
    REQUIRE(mkfifo((dir / "kernels/global.cl").c_str(), 0600) == 0);
    commands.push_back(run_args({"--size", "32x16", "--variant", "global", "--kernel-dir", dir / "kernels"}));
  }
  for (const CommandResult& result : run_together(commands)) check_refused(result, {"FIFO", "no process"});
}

TEST_CASE("hangs: a FIFO whose writer comes a second later is read; a FIFO as the tuning cache is only a warning") {
  TempDir dir("hostile");
  write_binary(dir / "ramp.png", ramp_png());
  REQUIRE(mkfifo((dir / "fifo").c_str(), 0600) == 0);
  // The writer gives up after 20 s, so a failure here cannot leave it blocked on the FIFO for ever.
  const CommandResult late = shell("(sleep 1; exec timeout 20 sh -c \"cat " + dir / "ramp.png" + " > " + dir / "fifo" +
                                   "\") > /dev/null 2>&1 & exec $CONVCOMPARE $RUN --filter identity --quiet --image " + shell_quoted(dir / "fifo") +
                                   " --output-dir " + shell_quoted(dir / "out"));
  const cc::Image image = identity_result(late, dir);
  REQUIRE(image.width == 64);
  CHECK(image.at(0, 47, 63) == ramp(63, 47));

  // The cache only saves time: a FIFO in its place is warned about, the run goes on and validates.
  if (driver_case_skipped("a FIFO as the tuning cache")) return;
  const std::string tune = "CONVCOMPARE_CACHE_DIR=" + shell_quoted(dir / "cache") +
                           " exec $CONVCOMPARE $RUN --size 32x16 --filter box:r=1 --variant auto --quiet";
  check_validated(shell(tune));
  std::string cache_file;
  for (const auto& entry : fs::directory_iterator(dir / "cache"))
    if (entry.path().extension() == ".json") cache_file = entry.path().string();
  REQUIRE_FALSE(cache_file.empty());
  fs::remove(cache_file);
  REQUIRE(mkfifo(cache_file.c_str(), 0600) == 0);
  const CommandResult with_fifo = shell(tune);
  check_validated(with_fifo, 2);
  CHECK(with_fifo.err.find("not a regular file") != std::string::npos);
  CHECK(with_fifo.seconds < 20);
}

TEST_CASE("hangs: endless and never-ending streams are cut at a cap, never read forever") {
  // A PFM header that never ends its size line, zeros forever, a JPEG frame followed by endless bytes.
  check_refused(shell("{ printf 'Pf\\n'; cat /dev/zero; } | exec $CONVCOMPARE $RUN --image /dev/stdin"),
                {"/dev/stdin", "too long"});
  check_refused(shell("{ printf 'Pf\\n1 1\\n'; yes 1; } | exec $CONVCOMPARE $RUN --image /dev/stdin"),
                {"more data after its 1x1x1 floats"});
  check_refused(convcompare(run_args({"--image", "/dev/zero"})), {"/dev/zero", "not a PNG"});
  check_refused(convcompare(run_args({"--size", "8x8", "--filter", "file:/dev/zero"})), {"/dev/zero", "16 MB limit"});
  check_refused(convcompare(run_args({"--size", "8x8", "--compare", "/dev/zero"})), {"/dev/zero", "32 MB limit"});
  TempDir dir("hostile");
  write_binary(dir / "frame.jpg", cc::test::jpeg_header(64, 48));
  check_refused(shell("{ cat " + shell_quoted(dir / "frame.jpg") + "; cat /dev/zero; } | exec $CONVCOMPARE $RUN --image /dev/stdin"),
                {"16 MB limit", "64x48 JPEG"});
}

TEST_CASE("hangs: --warmup 0 keeps the time budget (--repetitions 1000000 ends in seconds)") {
  const CommandResult result =
      convcompare({"--backend", backend(), "--size", "256x256", "--repetitions", "1000000", "--warmup", "0",
                   "--time-budget", "0.5", "--no-peaks", "--filter", "box:r=1", "--variant",
                   backend() == "cpu" ? "fast" : "global", "--quiet"});
  check_validated(result);
  CHECK(result.seconds < 10);
}

TEST_CASE("memory: an inflate bomb, a lying PFM on a pipe and a 6 GB 'JPEG' cost megabytes, not gigabytes") {
  TempDir dir("hostile");
  // 64x48 whose zlib stream inflates to 1.5 GB (a 1.5 MB file): only the declared rows are inflated.
  const std::string rows = cc::test::png_rows(64, 48, 1, ramp);
  write_binary(dir / "bomb.png",
               cc::test::png_file(cc::test::PngSpec(64, 48, 8, 0, rows), cc::test::zlib_with_zero_tail(rows, 1536ull << 20)));
  const CommandResult bomb = convcompare(run_args({"--image", dir / "bomb.png", "--filter", "identity", "--quiet",
                                                   "--output-dir", dir / "out"}));
  CHECK(identity_result(bomb, dir).at(0, 10, 20) == ramp(20, 10));
  const long baseline_kb = convcompare(run_args({"--size", "64x48", "--filter", "identity", "--quiet"})).max_rss_kb;
  CHECK(bomb.max_rss_kb < baseline_kb + 64 * 1024);  // not the 1.6 GB stb took

  // A PFM header on a pipe claiming 16384x16384 (3 GB of RGB floats), then 1 MB of data.
  const CommandResult liar =
      shell("{ printf 'PF\\n16384 16384\\n-1\\n'; head -c 1048576 /dev/zero; } | exec $CONVCOMPARE $RUN --image /dev/stdin");
  check_refused(liar, {"truncated PFM", "3221225472 bytes", "1048576"});
  CHECK(liar.max_rss_kb < baseline_kb + 64 * 1024);

  // A sparse 6 GB file that starts like a 64x48 JPEG, and one that starts like a PNG.
  write_binary(dir / "six.jpg", cc::test::jpeg_header(64, 48));
  fs::resize_file(dir / "six.jpg", 6ull << 30);
  const CommandResult jpeg = convcompare(run_args({"--image", dir / "six.jpg"}));
  check_refused(jpeg, {"6.0 GB", "64x48 JPEG"});
  CHECK(jpeg.max_rss_kb < baseline_kb + 64 * 1024);
  write_binary(dir / "six.png", ramp_png().substr(0, 33));  // signature and IHDR only
  fs::resize_file(dir / "six.png", 6ull << 30);
  check_refused(convcompare(run_args({"--image", dir / "six.png"})), {"six.png", "PNG"});
}

TEST_CASE("memory: a legal image too large for the memory left is refused with the figures") {
  if (backend() != "cpu") return;  // ulimit -v would starve the OpenCL runtime itself; the check is the same code
  if (!address_space_limit_testable()) return;
  TempDir dir("hostile");
  // 16384x16384 grey: a small file (all zeros), 1 GB of floats once decoded; 1.2 GB of address space.
  std::string all_rows;
  for (int y = 0; y < 16384; ++y) all_rows += '\0' + std::string(16384, '\0');
  write_binary(dir / "big.png", cc::test::png_file(cc::test::PngSpec(16384, 16384, 8, 0, all_rows)));
  all_rows.clear();
  all_rows.shrink_to_fit();
  const CommandResult result = shell("ulimit -v 1200000 && exec $CONVCOMPARE $RUN --image " + shell_quoted(dir / "big.png"));
  check_refused(result, {"big.png", "16384x16384", "1.2 GB of host memory", "available"});
}

TEST_CASE("memory: a 40 MB valid JSON baseline is refused by its size, before parsing") {
  TempDir dir("hostile");
  const CommandResult saved = convcompare(run_args({"--size", "16x8", "--filter", "box:r=1", "--quiet", "--json", dir / "one.json"}));
  check_validated(saved);
  // The same report with its runs repeated until the text is over 40 MB: still valid JSON.
  const std::string one = [&] {
    std::ifstream in(dir / "one.json");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  const std::size_t runs = one.find("\"runs\": [");
  REQUIRE(runs != std::string::npos);
  const std::size_t first = one.find('{', runs);
  const std::string run_text = one.substr(first, one.find("\n    }", first) + 6 - first);
  std::string big = one.substr(0, first);
  while (big.size() < (40u << 20)) big += run_text + ",\n    ";
  big += run_text + one.substr(one.find("\n    }", first) + 6);
  write_binary(dir / "big.json", big);
  REQUIRE(nlohmann::json::accept(big));
  check_refused(convcompare(run_args({"--size", "16x8", "--filter", "box:r=1", "--compare", dir / "big.json"})),
                {"big.json", "32 MB limit"});
  check_refused(convcompare({"merge", dir / "one.json", dir / "big.json"}), {"big.json", "32 MB limit"});
}

TEST_CASE("wrong pixels: a flipped byte in a PNG is refused; malformed PFM headers are refused") {
  TempDir dir("hostile");
  const std::string png = ramp_png();
  std::string flipped = png;
  flipped[png.find("IDAT") + 20] ^= 0x01;
  write_binary(dir / "flipped.png", flipped);
  check_refused(convcompare(run_args({"--image", dir / "flipped.png"})), {"flipped.png", "bad PNG"});

  const std::string pixel = cc::test::float_bytes(0.5f);
  const std::pair<std::string, std::string> headers[] = {
      {"Pf\r\n1 1\n-1\n" + pixel, "not a PFM file"},        {"Pf\n1  1\n-1\n" + pixel, "size line"},
      {"Pf\n1 1\n0\n" + pixel, "scale"},                     {"Pf\n1 1\nnan\n" + pixel, "scale"},
      {"Pf\n1 1\ninf\n" + pixel, "scale"},                   {"Pf\n1 1\n-1 junk\n" + pixel, "scale"},
      {"Pf\n1 1\n-1\n" + pixel + "trailing", "after its"}, {"Pf\n2 1\n-1\n" + pixel, "truncated PFM"},
      {"Pf\n1 -1\n-1\n" + pixel, "size line"},              {"Pf 1 1 -1\n" + pixel, "not a PFM file"}};
  for (const auto& [bytes, words] : headers) {
    CAPTURE(bytes);
    write_binary(dir / "bad.pfm", bytes);
    check_refused(convcompare(run_args({"--image", dir / "bad.pfm"})), {"bad.pfm", words});
    // The same bytes on a pipe end the same way.
    check_refused(shell("exec $CONVCOMPARE $RUN --image /dev/stdin < " + shell_quoted(dir / "bad.pfm")), {words});
  }
}

TEST_CASE("valid files refused no more: a top-down BMP, and PNG, JPEG, BMP and PFM arriving on a pipe") {
  TempDir dir("hostile");
  const auto rgb = [](int x, int y, int c) { return (x * 9 + y * 4 + c * 70) % 256; };
  write_binary(dir / "down.bmp", cc::test::bmp_file(64, 48, true, rgb));
  const cc::Image down = identity_result(
      convcompare(run_args({"--image", dir / "down.bmp", "--filter", "identity", "--quiet", "--output-dir", dir / "out"})),
      dir);
  REQUIRE(down.channels == 3);
  for (int c = 0; c < 3; ++c) CHECK(down.at(c, 5, 7) == rgb(7, 5, c));  // row 5 is the fifth row from the top

  write_binary(dir / "ramp.png", ramp_png());
  write_binary(dir / "up.bmp", cc::test::bmp_file(64, 48, false, rgb));
  for (const char* name : {"ramp.png", "up.bmp"}) {
    CAPTURE(name);
    fs::remove_all(dir / "out");
    const cc::Image piped = identity_result(shell("cat " + shell_quoted(dir / name) + " | exec $CONVCOMPARE $RUN --filter identity "
                                                  "--quiet --image /dev/stdin --output-dir " + shell_quoted(dir / "out")),
                                            dir);
    CHECK(piped.data == cc::load_image(dir / name).data);
  }
  // JPEG: lossy, so compared with the same file read from disk by the same decoder.
  std::string jpeg;
  std::vector<unsigned char> pixels(64 * 48 * 3);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<unsigned char>(rgb(i / 3 % 64, i / 192, i % 3));
  REQUIRE(stbi_write_jpg_to_func([](void* out, void* data, int size) {
            static_cast<std::string*>(out)->append(static_cast<const char*>(data), size);
          }, &jpeg, 64, 48, 3, pixels.data(), 90));
  write_binary(dir / "photo.jpg", jpeg);
  fs::remove_all(dir / "out");
  const cc::Image piped_jpeg = identity_result(shell("cat " + shell_quoted(dir / "photo.jpg") + " | exec $CONVCOMPARE $RUN "
                                                     "--filter identity --quiet --image /dev/stdin --output-dir " +
                                                     shell_quoted(dir / "out")),
                                               dir);
  CHECK(piped_jpeg.data == cc::load_image(dir / "photo.jpg").data);
  // PFM: exact floats.
  write_binary(dir / "ramp.pfm", cc::test::pfm_file(64, 48, [](int x, int y) { return x * 0.25f - y; }));
  const CommandResult pfm = shell("cat " + shell_quoted(dir / "ramp.pfm") + " | exec $CONVCOMPARE $RUN --filter identity --quiet "
                                  "--image /dev/stdin --output-dir " + shell_quoted(dir / "pfm"));
  check_validated(pfm);
  CHECK(cc::load_image(dir / "pfm/identity_zero_reference.pfm").data == cc::load_image(dir / "ramp.pfm").data);
}

TEST_CASE("wrong verdicts: correct results on subnormal data validate in every family of kernel arithmetic") {
  TempDir dir("hostile");
  // Deep subnormals (multiples of FLT_TRUE_MIN) and values near FLT_MIN, on a non-integer filter.
  write_binary(dir / "tiny.pfm", cc::test::pfm_file(37, 23, [](int x, int y) {
                 return (x * 7 + y * 13) % 3 == 0 ? static_cast<float>((x * 31 + y) % 97) * FLT_TRUE_MIN
                                                  : static_cast<float>((x + y * 3) % 11) * 1e-39f;
               }));
  std::vector<std::string> args = run_args({"--image", dir / "tiny.pfm", "--filter", "gaussian:sigma=1.3",
                                            "--filter", "sharpen:strength=0.7", "--border", "zero,mirror", "--quiet"});
  // One variant of each way a kernel reads and sums (where a device could flush subnormals: docs/correctness.md,
  // "The floor near zero"): global the direct sum from buffers, texture the image path's sampled reads, tiled
  // the tile staged on chip, separable the two passes through an on-chip intermediate, fast its own schemes,
  // fft the transforms. The others repeat one of these sums (constant: global's, its filter in constant
  // memory; async and shuffle: tiled's, its tile brought in otherwise; lowrank: separable's passes, summed):
  // `--variant all` here was 19 of test_hostile_opencl's 225 s.
  if (backend() == "opencl") args.insert(args.end(), {"--variant", "global,texture,tiled,separable,fast,fft"});
  check_validated(convcompare(args));
}

TEST_CASE("path errors are one clean line and exit 2: name too long, symlink loop, not a directory, socket, empty name") {
  TempDir dir("hostile");
  check_refused(convcompare(run_args({"--image", dir / std::string(300, 'n')})), {"file name too long"});
  fs::create_symlink(dir / "loop-b", dir / "loop-a");
  fs::create_symlink(dir / "loop-a", dir / "loop-b");
  check_refused(convcompare(run_args({"--image", dir / "loop-a"})), {"loop-a", "too many levels of symbolic links"});
  check_refused(convcompare(run_args({"--size", "8x8", "--filter", "file:" + dir / "loop-a"})), {"symbolic links"});
  check_refused(convcompare(run_args({"--size", "8x8", "--compare", dir / "loop-a"})), {"symbolic links"});
  write_binary(dir / "plain", "x");
  check_refused(convcompare(run_args({"--image", dir / "plain/child.png"})), {"not a directory"});
  check_refused(convcompare(run_args({"--image", dir.path.string()})), {"it is a directory"});
  check_refused(convcompare(run_args({"--image", "/dev/null"})), {"empty"});
  check_refused(convcompare(run_args({"--image", ""})), {"--image", "empty name"});
  check_refused(convcompare(run_args({"--size", "8x8", "--json", ""})), {"--json", "empty name"});

  const int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string socket_path = dir / "sock";
  REQUIRE(socket_path.size() < sizeof address.sun_path);
  std::copy(socket_path.begin(), socket_path.end(), address.sun_path);
  REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  check_refused(convcompare(run_args({"--image", socket_path})), {"it is a socket"});
  close(listener);
}
