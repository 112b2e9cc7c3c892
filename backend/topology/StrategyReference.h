#pragma once
// The topology reference's strategies, made from the registries themselves: every mode, rule,
// optimizer, codec, partition, model, data set, attack, fault policy and data format, with each
// parameter's meaning, range and default, as Markdown (`hips reference`, docs/strategies.md).
// Nothing here is written by hand, so the page cannot fall behind the code.
#include <QString>

namespace hips {

QString strategyReferenceMarkdown();

}  // namespace hips
