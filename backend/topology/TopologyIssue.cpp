#include "TopologyIssue.h"

#include "PrintableText.h"
#include "TopologyLimits.h"

namespace hips {

TopologyIssues presentableIssues(TopologyIssues issues) {
    const qsizetype total = issues.size();
    if (total > kMaxIssues) {
        issues.resize(kMaxIssues);
        issues.append(
            {QStringLiteral("$"), QStringLiteral("%1 more issues are not shown; fix the ones above first").arg(total - kMaxIssues)});
    }
    for (TopologyIssue& i : issues) {
        i.path = printableText(i.path, 300);
        i.message = printableText(i.message, 1000);
    }
    return issues;
}

}  // namespace hips
