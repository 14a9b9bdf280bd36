// Refinement when this build has no Timeline: the report says the answer is
// at checkpoint granularity and why.
#include "engine/bisect/refine.h"

namespace slsdbg::bisect {

bool refinement_built() { return false; }

RefineOutcome refine_segment(const RefineInput&) {
  RefineOutcome out;
  out.state = RefineState::NotBuilt;
  out.note = "refinement inside the segment is not built into this slsdbg (it needs the replay Timeline)";
  return out;
}

}  // namespace slsdbg::bisect
