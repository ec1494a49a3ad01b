// The forward pass's stages timed, in the benchmark's build (MHA_PROFILE,
// bench/profile.mjs): MHA_STAGE(name) adds the time from where it stands to
// the end of its scope to ForwardProfile::name (attention.hpp) when the
// engine has a profile to fill. Without MHA_PROFILE it is nothing at all.
#pragma once

#include "attention.hpp"
#if MHA_PROFILE
#include <chrono>
#endif

namespace mha {

#if MHA_PROFILE
class Stage {
 public:
  Stage(ForwardProfile* profile, double ForwardProfile::*field) : profile_(profile), field_(field) {
    if (profile_) start_ = std::chrono::steady_clock::now();
  }
  ~Stage() {
    if (profile_)
      profile_->*field_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  ForwardProfile* profile_;
  double ForwardProfile::*field_;
  std::chrono::steady_clock::time_point start_;
};
#define MHA_STAGE(name) const Stage stage_##name(profile, &ForwardProfile::name)
#else
#define MHA_STAGE(name) static_cast<void>(0)
#endif

}  // namespace mha
