#include "FedAvgRule.h"

#include "VectorMath.h"

#include <stdexcept>
#include <string>

namespace hips {

void FedAvgRule::begin(size_t length) {
    m_length = length;
    m_inputs.clear();
    m_owners.clear();
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
    m_inputs.push_back(values);
    m_owners.push_back(std::move(owner));
}

void FedAvgRule::write(float* out, const float* base, size_t begin, size_t end) const {
    if (end > m_length || begin > end) throw std::out_of_range("fedavg: range outside the model");
    std::vector<const float*> inputs(m_inputs.size());
    for (size_t k = 0; k < inputs.size(); ++k) inputs[k] = m_inputs[k] + begin;
    sumMany(out + begin, base ? base + begin : nullptr, inputs.data(), inputs.size(), end - begin);
}

}  // namespace hips
