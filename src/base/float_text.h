// Writing float32 values as short decimal text (JSON output of vectors).
#pragma once

namespace trit {

// The double whose shortest decimal form is `f`'s shortest float form, so a
// JSON writer that prints doubles shortest-first prints 0.0123 for 0.0123f,
// not 0.012300000339746475, and the text still reads back as `f` exactly.
// Infinities and NaN are returned as they are.
double ShortFloat(float f);

}  // namespace trit
