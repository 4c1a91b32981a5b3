// `ramus audit model.h5`: the energy audit (issue 12, item 3). Runs the model's scenario (or the
// options') and measures H = T + V_elastic + V_gravity domain by domain (each on its own vertex
// copies) at every sample; a run that gains energy beyond the work of its forces is reported and
// fails.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>

#include "commands.h"
#include "finite_number.h"
#include "model_trust_options.h"
#include "output_paths.h"
#include "ramus/error.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "ramus/precompute/reduction/world_energy.h"
#include "ramus/runtime/io/model_file.h"
#include "reduced_run_options.h"
#include "run_progress.h"

namespace ramus::cli {

namespace {

struct Args {
  TrustArgs trust;  ///< which signatures the model must carry
  std::string model, csv;
  bool ignore_spec = false;
  int every = 1;
  double tolerance = 0.01;
  ReducedRunArgs run;
  CLI::App* command = nullptr;
};

void run(const Args& args) {
  refuse_outputs_over_inputs({args.model}, {{"--csv", args.csv}});
  auto model =
      std::make_shared<const ReducedModel>(read_model_file(args.model, model_trust(args.trust)));
  const RunScenario scenario = model_scenario(*args.command, args.run, *model, args.ignore_spec);
  const int num_domains = static_cast<int>(model->domains.size());
  std::printf("audit     %s: %d domain%s, %d steps of %g s (%g s)%s\n", args.model.c_str(),
              num_domains, num_domains == 1 ? "" : "s", scenario.steps, scenario.settings.time_step,
              scenario.steps * scenario.settings.time_step,
              args.ignore_spec ? " (--ignore-spec: the command line's scenario)" : "");
  RunProgress progress("audit    ");
  if (!scenario.colliders.empty())
    std::printf(
        "colliders %zu, from the model's scenario: their barrier's potential counts in H "
        "and the work they do through it and its friction in W\n",
        scenario.colliders.size());
  const EnergyAudit audit = audit_energy(
      model, scenario.settings, scenario.steps, scenario.forces, args.every,
      [&progress](int step, int steps) { progress(step, steps); }, scenario.colliders);
  if (!audit.ok)
    throw NumericalError("audit: step " + std::to_string(audit.steps + 1) +
                         " failed (the run diverged or went non-finite); the energy before it "
                         "gained at most " +
                         std::to_string(audit.max_gain) + " J");
  if (!args.csv.empty())
    write_stream_atomically(args.csv, [&](std::ostream& out) {
      out << "time,kinetic,elastic,gravity,contact,total,work\n";
      out.precision(10);
      for (std::size_t k = 0; k < audit.time.size(); ++k) {
        const WorldEnergy& e = audit.energy[k];
        out << audit.time[k] << ',' << e.kinetic << ',' << e.elastic << ',' << e.gravity << ','
            << e.contact << ',' << e.total() << ',' << audit.work_done[k] << '\n';
      }
    });
  const double scale = std::max(audit.max_elastic, 1e-300);
  std::printf("energy    H = T + V_elastic + V_gravity%s of every domain, every %d steps\n",
              scenario.colliders.empty() ? "" : " + V_contact", args.every);
  std::printf("          start %.6g J, end %.6g J; work of the forces %.6g J\n", audit.initial,
              audit.final_total, audit.work);
  std::printf(
      "          largest gain H - W - H(0): %.4g J at t = %.4g s, %.3g %% of the largest "
      "elastic energy (%.4g J)\n",
      audit.max_gain, audit.max_gain_time, 100 * audit.max_gain / scale, audit.max_elastic);
  std::printf("          largest displacement %.4g m\n", audit.max_displacement);
  if (audit.max_gain > args.tolerance * scale)
    throw CheckFailed("audit: the run gained " + std::to_string(audit.max_gain) +
                      " J beyond the work of its forces (more than --tolerance " +
                      std::to_string(args.tolerance) +
                      " of its largest elastic energy): use a dissipative integrator "
                      "(sbdf2, be), a smaller time step or some Rayleigh damping "
                      "(docs/INTEGRATORS.md)");
  std::printf("ok        no energy gained beyond the work of the forces\n");
}

}  // namespace

void add_audit_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command =
      app.add_subcommand("audit",
                         "Energy audit of a model file's reduced run: H = T + V_elastic + "
                         "V_gravity measured domain by "
                         "domain; fails when the run gains energy beyond the work of its forces");
  args->command = command;
  command->add_option("model", args->model, "Model file (.h5)")->required();
  add_trust_options(command, args->trust);
  command->add_option("--csv", args->csv,
                      "Write the samples (time, kinetic, elastic, gravity, total, work) as CSV");
  command->add_option("--every", args->every, "Measure every n-th step")
      ->check(CLI::Range(1, 1000000) & finite_number())
      ->capture_default_str();
  command
      ->add_option("--tolerance", args->tolerance,
                   "Largest gain allowed, as a share of the largest elastic energy")
      ->check(CLI::Range(0.0, 1e6) & finite_number())
      ->capture_default_str();
  command->add_flag("--ignore-spec", args->ignore_spec, kIgnoreSpecHelp);
  add_reduced_run_options(command, args->run, {"steps"});
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
