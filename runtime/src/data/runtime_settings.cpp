#include "ramus/runtime/data/runtime_settings.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>

namespace ramus {

const char* to_string(InterfaceLumping lumping) {
  switch (lumping) {
    case InterfaceLumping::kInterface:
      return "L1";
    case InterfaceLumping::kCenterOfMass:
      return "L2";
    case InterfaceLumping::kRigidSubtree:
      return "L3";
  }
  return "unknown";
}

namespace {

struct IntegratorName {
  Integrator integrator;
  const char* name;
};

constexpr IntegratorName kIntegratorNames[] = {
    {Integrator::kNewmark, "newmark"},
    {Integrator::kBackwardEuler, "be"},
    {Integrator::kSemiImplicitEuler, "si"},
    {Integrator::kBdf2, "bdf2"},
    {Integrator::kSemiImplicitBdf2, "sbdf2"},
    {Integrator::kTrBdf2, "tr-bdf2"},
    {Integrator::kSemiImplicitTrBdf2, "str-bdf2"},
    {Integrator::kSdirk, "sdirk"},
    {Integrator::kExponentialRosenbrockEuler, "ere"},
    {Integrator::kSiere, "siere"},
    {Integrator::kSbdf2Ere, "sbdf2ere"},
    {Integrator::kStrSbdf2Ere, "str-sbdf2ere"},
    {Integrator::kImplicitMidpointBlend, "im-blend"},
};
static_assert(std::size(kIntegratorNames) == kNumIntegrators);

}  // namespace

const char* to_string(Integrator integrator) {
  for (const IntegratorName& entry : kIntegratorNames)
    if (entry.integrator == integrator) return entry.name;
  return "unknown";
}

bool uses_split_modes(Integrator integrator) {
  return integrator == Integrator::kSiere || integrator == Integrator::kSbdf2Ere ||
         integrator == Integrator::kStrSbdf2Ere;
}

std::string integrator_names() {
  std::string names;
  for (const IntegratorName& entry : kIntegratorNames) {
    if (!names.empty()) names += ", ";
    names += entry.name;
  }
  return names;
}

std::optional<InterfaceLumping> lumping_from_string(const std::string& name) {
  if (name == "L1" || name == "interface") return InterfaceLumping::kInterface;
  if (name == "L2" || name == "center_of_mass") return InterfaceLumping::kCenterOfMass;
  if (name == "L3" || name == "rigid_subtree") return InterfaceLumping::kRigidSubtree;
  return std::nullopt;
}

std::optional<Integrator> integrator_from_string(const std::string& name) {
  for (const IntegratorName& entry : kIntegratorNames)
    if (name == entry.name) return entry.integrator;
  return std::nullopt;
}

}  // namespace ramus
