#include "FedAvgAggregator.h"

#include "VectorMath.h"

#include <algorithm>
#include <stdexcept>

namespace hips {

void FedAvgAggregator::begin(size_t length) {
    m_sum.assign(length, 0.0f);
    m_count = 0;
}

void FedAvgAggregator::add(const float* values, size_t length) {
    if (length != m_sum.size())
        throw std::invalid_argument("fedavg: contribution of " + std::to_string(length) +
                                    " values, expected " + std::to_string(m_sum.size()));
    // The first contribution is copied rather than added: same result, half the memory traffic.
    if (m_count == 0) std::copy(values, values + length, m_sum.begin());
    else addInto(m_sum.data(), values, length);
    ++m_count;
}

}  // namespace hips
