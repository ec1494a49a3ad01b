// Stages of a call timed, in the benchmark's builds (MHA_PROFILE): the
// attention's forward (ForwardProfile, attention.hpp; bench/profile.mjs) and
// a model's blocks (BlockProfile, src/model/blocks/profile.hpp;
// bench/model-profile.mjs). MHA_STAGE(name) adds the time from where it
// stands to the end of its scope to ForwardProfile::name when the engine has
// a profile to fill. Without MHA_PROFILE it is nothing at all.
#pragma once

#include "attention.hpp"
#if MHA_PROFILE
#include <chrono>
#endif

namespace mha {

#if MHA_PROFILE
// Adds the milliseconds of its lifetime to profile->*field (nothing when profile is null).
template <typename Profile>
class Stage {
 public:
  Stage(Profile* profile, double Profile::*field) : profile_(profile), field_(field) {
    if (profile_) start_ = std::chrono::steady_clock::now();
  }
  ~Stage() {
    if (profile_)
      profile_->*field_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;

 private:
  Profile* profile_;
  double Profile::*field_;
  std::chrono::steady_clock::time_point start_;
};
#define MHA_STAGE(name) const Stage<ForwardProfile> stage_##name(profile, &ForwardProfile::name)
#else
#define MHA_STAGE(name) static_cast<void>(0)
#endif

}  // namespace mha
