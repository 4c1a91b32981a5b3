// A C++ program built against an installed Ramus: loads a model, steps it, reads positions.
#include <cmath>
#include <cstdio>
#include <vector>

#include "ramus/runtime/simulator.h"
#include "ramus/runtime/version.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const auto model = ramus::load_model(argv[1]);
  ramus::Simulator object(model);
  if (object.initialize() != ramus::StepStatus::kOk) return 1;
  object.add_vertex_force(model->num_domains() - 1, 0, Eigen::Vector3d(0, 0, 1));
  for (int k = 0; k < 100; ++k)
    if (object.step() != ramus::StepStatus::kOk) return 1;
  std::vector<float> x(3 * static_cast<std::size_t>(model->num_global_vertices));
  object.render_positions(x.data());
  for (const float value : x)
    if (!std::isfinite(value)) return 1;
  std::printf("consumer: ramus %s, %d domains, 100 steps, t = %.3f s\n", ramus::version_string(),
              model->num_domains(), object.time());
  return 0;
}
