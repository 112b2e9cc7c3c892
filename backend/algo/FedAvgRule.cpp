#include "FedAvgRule.h"

#include "VectorMath.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hips {

void FedAvgRule::begin(size_t length) {
    m_length = length;
    m_inputs.clear();
    m_owners.clear();
    m_from.clear();
}

void FedAvgRule::add(Contribution c) {
    const float* values = c.values;
    std::shared_ptr<const void> owner = std::move(c.owner);
    if (c.length != m_length)
        throw std::invalid_argument("fedavg: contribution of " + std::to_string(c.length) + " values, expected " +
                                    std::to_string(m_length));
    if (!owner) {  // the caller keeps no promise about `values`: hold a copy
        auto copy = std::make_shared<std::vector<float>>(values, values + c.length);
        values = copy->data();
        owner = std::move(copy);
    }
    // In the senders' order, whatever the arrival's (float addition is not associative): the bits
    // of a round do not depend on the network, and are those of a fold in the contributors' order.
    const auto at = std::upper_bound(m_from.begin(), m_from.end(), c.from) - m_from.begin();
    m_from.insert(m_from.begin() + at, c.from);
    m_inputs.insert(m_inputs.begin() + at, values);
    m_owners.insert(m_owners.begin() + at, std::move(owner));
}

void FedAvgRule::write(float* out, const float* base, size_t begin, size_t end) const {
    if (end > m_length || begin > end) throw std::out_of_range("fedavg: range outside the model");
    std::vector<const float*> inputs(m_inputs.size());
    for (size_t k = 0; k < inputs.size(); ++k) inputs[k] = m_inputs[k] + begin;
    sumMany(out + begin, base ? base + begin : nullptr, inputs.data(), inputs.size(), end - begin);
}

}  // namespace hips
