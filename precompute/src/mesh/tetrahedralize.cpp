#include "ramus/precompute/mesh/tetrahedralize.h"

#include <tetgen.h>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <map>
#include <numbers>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "../formats/text_io.h"
#include "ramus/error.h"

namespace ramus {

namespace {

struct CellHash {
  std::size_t operator()(const std::array<long long, 3>& k) const {
    std::size_t h = 1469598103934665603ull;
    for (long long v : k) h = (h ^ static_cast<std::size_t>(v)) * 1099511628211ull;
    return h;
  }
};

// Representative index of every vertex after merging points closer than `tolerance`
// (exact duplicates when tolerance is 0). Representatives are the first occurrences.
std::vector<int> merge_close_vertices(const Eigen::MatrixX3d& V, double tolerance) {
  const int n = static_cast<int>(V.rows());
  std::vector<int> rep(n);
  if (!(tolerance > 0)) {
    std::map<std::array<double, 3>, int> first;
    for (int i = 0; i < n; ++i)
      rep[i] = first.emplace(std::array<double, 3>{V(i, 0), V(i, 1), V(i, 2)}, i).first->second;
    return rep;
  }
  std::unordered_map<std::array<long long, 3>, std::vector<int>, CellHash> grid;
  const Eigen::RowVector3d origin = V.colwise().minCoeff();
  for (int i = 0; i < n; ++i) {
    std::array<long long, 3> cell;
    for (int c = 0; c < 3; ++c)
      cell[c] = static_cast<long long>(std::floor((V(i, c) - origin(c)) / tolerance));
    rep[i] = i;
    for (long long dx = -1; dx <= 1 && rep[i] == i; ++dx)
      for (long long dy = -1; dy <= 1 && rep[i] == i; ++dy)
        for (long long dz = -1; dz <= 1 && rep[i] == i; ++dz) {
          auto it = grid.find({cell[0] + dx, cell[1] + dy, cell[2] + dz});
          if (it == grid.end()) continue;
          for (int j : it->second)
            if ((V.row(i) - V.row(j)).norm() <= tolerance) {
              rep[i] = j;
              break;
            }
        }
    if (rep[i] == i) grid[cell].push_back(i);
  }
  return rep;
}

// What TetGen may use before it is stopped (tetgen_budget): options that cannot terminate (a
// radius-edge bound near 1), a surface that keeps it refining or options that ask for billions
// of tets must end in a message, not a hang or a swapped-out machine. CPU seconds, and bytes of
// address space (at most this, at most 3/4 of the RAM).
constexpr long kTetgenCpuSeconds = 600;
constexpr double kTetgenMemoryBytes = 16e9;
// The most tets a max_volume bound may ask for (estimated from the enclosed volume).
constexpr double kMaxEstimatedTets = 20e6;
constexpr int kTetgenTimedOut = 1000;  // (run_tetgen_isolated: past its CPU budget)

std::string tetgen_failure(int code, const TetgenBudget& budget) {
  switch (code) {
    case kTetgenTimedOut:
      return "TetGen did not finish within its budget of " + std::to_string(budget.cpu_seconds) +
             " s of CPU time for this surface (it kept refining: a nearly degenerate or "
             "self-touching surface, a max_radius_edge_ratio near 1 or a tiny max_volume)";
    case 1:
      return "TetGen ran out of memory (try a larger max_volume)";
    case 2:
      return "TetGen hit an internal error; the surface is probably self-intersecting or "
             "nearly degenerate: repair it (e.g. with MeshLab or PyMeshFix) and retry";
    case 3:
      return "the surface intersects itself (TetGen error 3); repair it so that triangles "
             "only meet at shared edges and vertices";
    case 4:
      return "the surface has a very small feature (an edge or face much smaller than the "
             "model, TetGen error 4); remove tiny triangles or merge close vertices";
    case 5:
      return "two surface facets are very close to each other (TetGen error 5); separate or "
             "merge them";
    case 10:
      return "TetGen rejected the input surface (error 10: invalid PLC)";
    default:
      return "TetGen failed with error code " + std::to_string(code);
  }
}

// Generalized winding number of a triangle set around p (1 or -1 inside a closed surface, 0
// outside; fractional for open sets).
double winding_number(const Eigen::MatrixX3d& V, const std::vector<std::array<int, 3>>& tris,
                      const Eigen::Vector3d& p) {
  double total = 0;
  for (const auto& t : tris) {
    const Eigen::Vector3d a = V.row(t[0]).transpose() - p;
    const Eigen::Vector3d b = V.row(t[1]).transpose() - p;
    const Eigen::Vector3d c = V.row(t[2]).transpose() - p;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    const double numerator = a.dot(b.cross(c));
    const double denominator = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    total += 2.0 * std::atan2(numerator, denominator);
  }
  return total / (4.0 * std::numbers::pi);
}

// What the TetGen child process sends back.
struct TetgenOutput {
  std::vector<double> points;      // 3 per point
  std::vector<int> tets;           // 4 per tet, 0-based
  std::vector<double> attributes;  // num_attributes per tet
  int num_attributes = 0;
};

constexpr int kChildCrashed = 97;

extern "C" void tetgen_child_fatal_signal(int) {
  _exit(kChildCrashed);
}

bool write_all(int fd, const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
  return true;
}

// The process's mapped address space (bytes), from /proc/self/statm; 0 where unreadable.
rlim_t mapped_bytes() {
  const int fd = ::open("/proc/self/statm", O_RDONLY);
  if (fd < 0) return 0;
  char text[64] = {};
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  rlim_t pages = 0;
  for (ssize_t k = 0; k < n && text[k] >= '0' && text[k] <= '9'; ++k)
    pages = 10 * pages + static_cast<rlim_t>(text[k] - '0');
  return pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
}

// Runs TetGen in a forked child. TetGen 1.5.0 (Debian's libtet1.5) frees its memory twice when
// it throws an error code (terminatetetgen() frees, then the stack tetgenmesh's destructor frees
// again during unwinding), so an invalid surface would crash the whole program; a child process
// contains that. Returns the TetGen error code (0: success, -1: crashed / killed,
// kTetgenTimedOut: past its CPU time).
int run_tetgen_isolated(tetgenio& in, const std::string& switches, const TetgenBudget& budget,
                        TetgenOutput& result, std::string& diagnostics) {
  FILE* data = std::tmpfile();
  FILE* log = std::tmpfile();
  if (!data || !log) {
    if (data) std::fclose(data);
    if (log) std::fclose(log);
    throw Error("tetrahedralize: cannot create temporary files for TetGen");
  }
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::fclose(data);
    std::fclose(log);
    throw Error("tetrahedralize: fork() failed");
  }
  if (pid == 0) {  // child: only async-signal-safe-ish work, leave with _exit
    // Dies with its parent, whatever ends it (the parent's cleanup handlers are not its own).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(kChildCrashed);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, SIG_DFL);
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL})
      std::signal(sig, tetgen_child_fatal_signal);
    // The budget (SIGXCPU past the CPU time; failed allocations past the memory).
    const rlimit cpu{static_cast<rlim_t>(budget.cpu_seconds),
                     static_cast<rlim_t>(budget.cpu_seconds + 5)};
    ::setrlimit(RLIMIT_CPU, &cpu);
    // Memory: the budget beyond what the process had mapped at the fork (its libraries differ
    // from build to build: OpenVDB and TBB alone map tens of MB).
    const rlim_t mapped = mapped_bytes();
    const rlimit memory{mapped + static_cast<rlim_t>(budget.bytes),
                        mapped + static_cast<rlim_t>(budget.bytes)};
    ::setrlimit(RLIMIT_AS, &memory);
    ::dup2(::fileno(log), STDOUT_FILENO);
    ::dup2(::fileno(log), STDERR_FILENO);
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    std::vector<char> buffer(switches.begin(), switches.end());
    buffer.push_back('\0');
    tetgenio out;
    int code = 0;
    try {
      ::tetrahedralize(buffer.data(), &in, &out);
    } catch (int error) {
      code = error;
    } catch (const std::bad_alloc&) {
      code = 1;  // (TetGen's own out-of-memory code)
    } catch (...) {
      code = -1;
    }
    const int fd = ::fileno(data);
    int header[4] = {code, 0, 0, 0};
    if (code == 0 && out.numberofcorners == 4) {
      header[1] = out.numberofpoints;
      header[2] = out.numberoftetrahedra;
      header[3] = out.tetrahedronattributelist ? out.numberoftetrahedronattributes : 0;
    }
    bool ok = write_all(fd, header, sizeof(header));
    const std::size_t np = static_cast<std::size_t>(header[1]);
    const std::size_t nt = static_cast<std::size_t>(header[2]);
    const std::size_t na = static_cast<std::size_t>(header[3]);
    if (ok && np > 0) ok = write_all(fd, out.pointlist, 3 * np * sizeof(double));
    if (ok && nt > 0) {
      std::vector<int> tets(out.tetrahedronlist, out.tetrahedronlist + 4 * nt);
      for (int& v : tets) v -= out.firstnumber;
      ok = write_all(fd, tets.data(), tets.size() * sizeof(int));
    }
    if (ok && nt * na > 0)
      ok = write_all(fd, out.tetrahedronattributelist, nt * na * sizeof(double));
    _exit(ok ? 0 : kChildCrashed);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // Diagnostics printed by TetGen (first few lines).
  std::rewind(log);
  char line[512];
  for (int k = 0; k < 8 && std::fgets(line, sizeof(line), log); ++k) diagnostics += line;
  std::fclose(log);
  int code = -1;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) code = kTetgenTimedOut;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    std::rewind(data);
    int header[4] = {0, 0, 0, 0};
    if (std::fread(header, sizeof(header), 1, data) == 1) {
      code = header[0];
      const long long np = header[1], nt = header[2], na = header[3];
      if (code == 0 && np >= 0 && nt >= 0 && na >= 0 && na < 64) {
        result.points.resize(static_cast<std::size_t>(3 * np));
        result.tets.resize(static_cast<std::size_t>(4 * nt));
        result.attributes.resize(static_cast<std::size_t>(nt * na));
        result.num_attributes = static_cast<int>(na);
        const bool complete =
            std::fread(result.points.data(), sizeof(double), result.points.size(), data) ==
                result.points.size() &&
            std::fread(result.tets.data(), sizeof(int), result.tets.size(), data) ==
                result.tets.size() &&
            std::fread(result.attributes.data(), sizeof(double), result.attributes.size(), data) ==
                result.attributes.size();
        if (!complete) code = -1;
      }
    }
  }
  std::fclose(data);
  return code;
}

double enclosed_volume(const Eigen::MatrixX3d& V, const std::vector<std::array<int, 3>>& tris) {
  double total = 0;
  for (const auto& t : tris) total += V.row(t[0]).dot(V.row(t[1]).cross(V.row(t[2])));
  return std::abs(total) / 6.0;
}

}  // namespace

TetgenBudget tetgen_budget(int num_triangles, double enclosed_volume, double max_volume) {
  const double expected_tets =
      1000.0 * std::max(num_triangles, 0) +
      (max_volume > 0 && std::isfinite(enclosed_volume / max_volume) ? enclosed_volume / max_volume
                                                                     : 0.0);
  const double ram =
      static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGESIZE));
  const double most_bytes = std::min(kTetgenMemoryBytes, ram > 0 ? 0.75 * ram : kTetgenMemoryBytes);
  TetgenBudget budget;
  budget.cpu_seconds = static_cast<long>(
      std::min(static_cast<double>(kTetgenCpuSeconds), 10 + std::ceil(expected_tets * 1e-4)));
  budget.bytes = std::min(most_bytes, 256e6 + 1e3 * expected_tets);
  return budget;
}

TetMesh tetrahedralize(const SurfaceMesh& surface, const TetrahedralizeOptions& options,
                       const std::string& file_for_messages) {
  if (!std::isfinite(options.max_radius_edge_ratio) ||
      (options.max_radius_edge_ratio != 0 && options.max_radius_edge_ratio < 1.1))
    throw OptionError(
        "tetrahedralize: max_radius_edge_ratio must be 0 (off) or >= 1.1 (TetGen's refinement "
        "need not terminate below), got " +
        detail::format_double(options.max_radius_edge_ratio));
  if (!std::isfinite(options.max_volume) || options.max_volume < 0)
    throw OptionError("tetrahedralize: max_volume must be >= 0 (0 = unbounded), got " +
                      detail::format_double(options.max_volume));
  const auto fail = [&](const std::string& message) {
    throw InputError(file_for_messages, 0, message);
  };
  const int nv_in = surface.num_vertices();
  const int nf_in = surface.num_triangles();
  if (nf_in == 0) fail("the surface has no triangles");
  for (int i = 0; i < nv_in; ++i)
    if (!surface.vertices.row(i).allFinite())
      fail("vertex " + std::to_string(i) + " has a non-finite coordinate");
  for (int f = 0; f < nf_in; ++f)
    for (int c = 0; c < 3; ++c)
      if (surface.triangles(f, c) < 0 || surface.triangles(f, c) >= nv_in)
        fail("triangle " + std::to_string(f) + " references vertex " +
             std::to_string(surface.triangles(f, c)) + " but the surface has " +
             std::to_string(nv_in) + " vertices");
  const bool has_groups = surface.groups.size() == nf_in;

  // 1. Merge coincident vertices, keeping only referenced ones (renumbered in input order).
  const double diagonal =
      (surface.vertices.colwise().maxCoeff() - surface.vertices.colwise().minCoeff()).norm();
  const std::vector<int> rep = merge_close_vertices(surface.vertices, 1e-12 * diagonal);
  std::vector<int> new_index(nv_in, -1);
  for (int f = 0; f < nf_in; ++f)
    for (int c = 0; c < 3; ++c) new_index[rep[surface.triangles(f, c)]] = 0;
  int nv = 0;
  for (int& k : new_index)
    if (k == 0) k = nv++;
  Eigen::MatrixX3d V(nv, 3);
  for (int i = 0; i < nv_in; ++i)
    if (new_index[i] >= 0) V.row(new_index[i]) = surface.vertices.row(i);

  // 2. Drop collapsed triangles; keep per-group copies (for region naming) and one copy of
  //    each face shared by several parts (internal facet of the PLC).
  std::vector<std::array<int, 3>> merged;
  std::vector<int> merged_group;
  for (int f = 0; f < nf_in; ++f) {
    std::array<int, 3> t;
    for (int c = 0; c < 3; ++c) t[c] = new_index[rep[surface.triangles(f, c)]];
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;
    merged.push_back(t);
    merged_group.push_back(has_groups ? surface.groups(f) : 0);
  }
  SurfaceMesh plc;
  plc.vertices = V;
  {
    std::map<std::array<int, 3>, int> seen;
    std::vector<int> keep;
    for (int f = 0; f < static_cast<int>(merged.size()); ++f) {
      std::array<int, 3> key = merged[f];
      std::sort(key.begin(), key.end());
      if (seen.emplace(key, f).second) keep.push_back(f);
    }
    plc.triangles.resize(static_cast<int>(keep.size()), 3);
    for (int k = 0; k < static_cast<int>(keep.size()); ++k)
      for (int c = 0; c < 3; ++c) plc.triangles(k, c) = merged[keep[k]][c];
  }
  check_closed_surface(plc, file_for_messages, /*allow_internal_faces=*/true);
  const double enclosed = std::abs(enclosed_volume(V, merged));
  const TetgenBudget budget = tetgen_budget(plc.num_triangles(), enclosed, options.max_volume);
  if (options.max_volume > 0) {
    if (enclosed / options.max_volume > kMaxEstimatedTets)
      throw OptionError(
          "tetrahedralize: max_volume = " + detail::format_double(options.max_volume) +
          " m^3 asks for at least " + detail::format_double(enclosed / options.max_volume) +
          " tets in the enclosed " + detail::format_double(enclosed) + " m^3 (more than " +
          detail::format_double(kMaxEstimatedTets) + "): raise it");
  }

  // 3. TetGen.
  tetgenio in;
  in.firstnumber = 0;
  in.numberofpoints = nv;
  in.pointlist = new REAL[3 * static_cast<std::size_t>(nv)];
  for (int i = 0; i < nv; ++i)
    for (int c = 0; c < 3; ++c) in.pointlist[3 * i + c] = V(i, c);
  const int nf = plc.num_triangles();
  in.numberoffacets = nf;
  in.facetlist = new tetgenio::facet[nf];
  for (int f = 0; f < nf; ++f) {
    tetgenio::facet& facet = in.facetlist[f];
    tetgenio::init(&facet);
    facet.polygonlist = new tetgenio::polygon[1];
    facet.numberofpolygons = 1;
    tetgenio::polygon& polygon = facet.polygonlist[0];
    tetgenio::init(&polygon);
    polygon.vertexlist = new int[3];
    polygon.numberofvertices = 3;
    for (int c = 0; c < 3; ++c) polygon.vertexlist[c] = plc.triangles(f, c);
  }
  // TetGen treats -a as a target, not a hard bound: a few tets can end up ~20% larger (seen with
  // TetGen 1.5.0, especially with -q). Retry with a tighter bound, then split what is left.
  const auto tetgen_volume = [](const TetgenOutput& o, std::size_t t) {
    const double* p[4];
    for (int c = 0; c < 4; ++c) p[c] = &o.points[3 * static_cast<std::size_t>(o.tets[4 * t + c])];
    const Eigen::Vector3d x0(p[0][0], p[0][1], p[0][2]);
    Eigen::Matrix3d D;
    for (int c = 0; c < 3; ++c)
      D.col(c) = Eigen::Vector3d(p[c + 1][0], p[c + 1][1], p[c + 1][2]) - x0;
    return std::abs(D.determinant()) / 6.0;
  };
  TetgenOutput out;
  double volume_bound = options.max_volume;
  for (int attempt = 0;; ++attempt) {
    std::string switches = "p";
    if (options.max_radius_edge_ratio > 0)
      switches += "q" + detail::format_double(options.max_radius_edge_ratio);
    if (volume_bound > 0) switches += "a" + detail::format_double(volume_bound);
    if (options.label_regions) switches += "A";
    switches += "Q";
    out = TetgenOutput();
    std::string diagnostics;
    const int code = run_tetgen_isolated(in, switches, budget, out, diagnostics);
    if (code != 0) {
      std::string message =
          code > 0 ? tetgen_failure(code, budget)
                   : "TetGen failed on this surface (it crashed while reporting an error, a "
                     "known TetGen 1.5.0 bug); the surface most likely intersects itself, or has "
                     "nearly coincident facets or tiny features: repair it and retry";
      // Keep TetGen's own explanation when it printed one (e.g. the intersecting facets).
      while (!diagnostics.empty() && std::isspace(static_cast<unsigned char>(diagnostics.back())))
        diagnostics.pop_back();
      if (!diagnostics.empty()) message += "\nTetGen says: " + diagnostics;
      fail(message);
    }
    const int num_points = static_cast<int>(out.points.size() / 3);
    for (int v : out.tets)
      if (v < 0 || v >= num_points) fail("TetGen returned an invalid tet (internal error)");
    if (!(options.max_volume > 0) || attempt == 3) break;
    double largest = 0;
    for (std::size_t t = 0; t < out.tets.size() / 4; ++t)
      largest = std::max(largest, tetgen_volume(out, t));
    if (largest <= options.max_volume) break;
    volume_bound *= 0.95 * options.max_volume / largest;
  }
  int nt = static_cast<int>(out.tets.size() / 4);
  if (nt == 0) fail("TetGen produced no tetrahedra (is the surface closed and non-degenerate?)");
  if (options.max_volume > 0) {
    // Fallback: split any tet still above the bound at its centroid (4 tets of 1/4 volume).
    for (std::size_t t = 0; t < out.tets.size() / 4; ++t) {
      if (tetgen_volume(out, t) <= options.max_volume) continue;
      const int centre = static_cast<int>(out.points.size() / 3);
      for (int x = 0; x < 3; ++x) {
        double sum = 0;
        for (int c = 0; c < 4; ++c)
          sum += out.points[3 * static_cast<std::size_t>(out.tets[4 * t + c]) + x];
        out.points.push_back(sum / 4.0);
      }
      const std::array<int, 4> v = {out.tets[4 * t], out.tets[4 * t + 1], out.tets[4 * t + 2],
                                    out.tets[4 * t + 3]};
      for (int c = 0; c < 4; ++c) {
        std::array<int, 4> child = v;
        child[c] = centre;  // replacing one corner by the centroid keeps the orientation
        if (c == 0) {
          std::copy(child.begin(), child.end(), out.tets.begin() + 4 * t);
        } else {
          out.tets.insert(out.tets.end(), child.begin(), child.end());
          for (int a = 0; a < out.num_attributes; ++a) {
            const double attribute = out.attributes[t * out.num_attributes + a];
            out.attributes.push_back(attribute);
          }
        }
      }
      --t;  // re-check the shrunk tet (a tet more than 4 times too large splits again)
    }
    nt = static_cast<int>(out.tets.size() / 4);
  }
  const int num_points = static_cast<int>(out.points.size() / 3);

  TetMesh mesh;
  mesh.rest_positions.resize(num_points, 3);
  for (int i = 0; i < num_points; ++i)
    for (int c = 0; c < 3; ++c) mesh.rest_positions(i, c) = out.points[3 * i + c];
  mesh.tets.resize(nt, 4);
  for (int t = 0; t < nt; ++t)
    for (int c = 0; c < 4; ++c) mesh.tets(t, c) = out.tets[4 * t + c];
  // TetGen 1.5.0 emits tets with positive signed_tet_volume already (verified on Debian's
  // libtet1.5); flip any that are not, so the convention holds with any TetGen build.
  Eigen::VectorXd volume(nt);
  for (int t = 0; t < nt; ++t) {
    volume(t) = signed_tet_volume(mesh.rest_positions, mesh.tets, t);
    if (volume(t) < 0) {
      std::swap(mesh.tets(t, 1), mesh.tets(t, 2));
      volume(t) = -volume(t);
    }
  }
  if (!options.label_regions || out.num_attributes < 1) return mesh;

  // 4. Regions -> labels.
  std::map<double, int> region_of_attribute;
  for (int t = 0; t < nt; ++t)
    region_of_attribute.emplace(out.attributes[t * out.num_attributes], 0);
  const int k = static_cast<int>(region_of_attribute.size());
  {
    int r = 0;
    for (auto& entry : region_of_attribute) entry.second = r++;
  }
  Eigen::VectorXi region(nt);
  std::vector<double> region_volume(k, 0.0);
  std::vector<Eigen::Vector3d> region_centroid(k, Eigen::Vector3d::Zero());
  std::vector<int> largest_tet(k, -1);
  for (int t = 0; t < nt; ++t) {
    const int r = region_of_attribute[out.attributes[t * out.num_attributes]];
    region(t) = r;
    Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
    for (int c = 0; c < 4; ++c) centroid += mesh.rest_positions.row(mesh.tets(t, c)).transpose();
    centroid /= 4.0;
    region_volume[r] += volume(t);
    region_centroid[r] += volume(t) * centroid;
    if (largest_tet[r] < 0 || volume(t) > volume(largest_tet[r])) largest_tet[r] = t;
  }
  for (int r = 0; r < k; ++r)
    if (region_volume[r] > 0) region_centroid[r] /= region_volume[r];

  std::vector<int> label_of_region(k, 0);
  bool named = false;
  if (has_groups && !surface.group_names.empty()) {
    const int num_groups = static_cast<int>(surface.group_names.size());
    std::vector<std::vector<std::array<int, 3>>> group_tris(num_groups);
    for (std::size_t f = 0; f < merged.size(); ++f)
      if (merged_group[f] >= 0 && merged_group[f] < num_groups)
        group_tris[merged_group[f]].push_back(merged[f]);
    std::vector<double> group_volume(num_groups);
    for (int g = 0; g < num_groups; ++g) group_volume[g] = enclosed_volume(V, group_tris[g]);
    named = true;
    std::vector<bool> used(num_groups, false);
    for (int r = 0; r < k && named; ++r) {
      const int t = largest_tet[r];
      Eigen::Vector3d p = Eigen::Vector3d::Zero();
      for (int c = 0; c < 4; ++c) p += mesh.rest_positions.row(mesh.tets(t, c)).transpose();
      p /= 4.0;
      int best = -1;
      for (int g = 0; g < num_groups && named; ++g) {
        if (group_tris[g].empty()) continue;
        const double w = std::abs(winding_number(V, group_tris[g], p));
        if (std::abs(w - std::round(w)) > 0.1) named = false;  // group is not closed
        if (w > 0.5 && (best < 0 || group_volume[g] < group_volume[best])) best = g;
      }
      if (best < 0 || used[best]) named = false;
      if (named) {
        used[best] = true;
        label_of_region[r] = best + 1;
      }
    }
  }
  if (named) {
    for (int r = 0; r < k; ++r)
      mesh.label_names[label_of_region[r]] = surface.group_names[label_of_region[r] - 1];
  } else {
    std::vector<int> order(k);
    for (int r = 0; r < k; ++r) order[r] = r;
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      const Eigen::Vector3d& ca = region_centroid[a];
      const Eigen::Vector3d& cb = region_centroid[b];
      return std::tie(ca(0), ca(1), ca(2), a) < std::tie(cb(0), cb(1), cb(2), b);
    });
    for (int i = 0; i < k; ++i) label_of_region[order[i]] = i + 1;
  }
  mesh.labels.resize(nt);
  for (int t = 0; t < nt; ++t) mesh.labels(t) = label_of_region[region(t)];
  return mesh;
}

}  // namespace ramus
