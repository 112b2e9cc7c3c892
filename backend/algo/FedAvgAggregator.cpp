#include "FedAvgAggregator.h"

#include "VectorMath.h"

#include <algorithm>
#include <stdexcept>

namespace hips {

void FedAvgAggregator::begin(size_t length) {
    // The buffer is kept from round to round: a fresh 64 MB allocation costs page faults.
    if (m_sum.size() != length) m_sum.assign(length, 0.0f);
    m_count = 0;
    m_first.reset();
}

void FedAvgAggregator::add(const float* values, size_t length, std::shared_ptr<const void> owner) {
    if (length != m_sum.size())
        throw std::invalid_argument("fedavg: contribution of " + std::to_string(length) +
                                    " values, expected " + std::to_string(m_sum.size()));
    if (m_count == 0 && owner) {
        m_first = std::move(owner);
        m_firstValues = values;
    } else if (m_count == 0) {
        std::copy(values, values + length, m_sum.begin());
    } else if (m_first) {
        sumInto(m_sum.data(), m_firstValues, values, length);
        m_first.reset();
    } else {
        addInto(m_sum.data(), values, length);
    }
    ++m_count;
}

}  // namespace hips
