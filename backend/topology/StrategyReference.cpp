#include "StrategyReference.h"

#include "PartyLauncher.h"

#include "Adversary.h"
#include "AggregatorRegistry.h"
#include "Collective.h"
#include "DataFormatRegistry.h"
#include "FaultPolicy.h"
#include "PrivacyMechanism.h"
#include "FedOptimizer.h"
#include "GradientCodec.h"
#include "ModeRegistry.h"
#include "ModelRegistry.h"
#include "NumberText.h"
#include "Partition.h"

namespace hips {

namespace {

QString cell(QString text) {  // one table cell: a | would end it
    return text.replace(QLatin1Char('|'), QStringLiteral("\\|")).replace(QLatin1Char('\n'), QLatin1Char(' '));
}

QString parameters(const StrategyInfo& s) {
    QStringList out;
    for (const ParamSpec& p : s.params)
        out << QStringLiteral("`%1`: %2 (%3; default %4)").arg(p.name, cell(p.help), p.rangeText(), numberText(p.defaultValue));
    return out.join(QStringLiteral("<br>"));
}

QString section(const QString& title, const QString& where, const StrategyList& list) {
    QString md = QStringLiteral("\n## %1\n\n%2\n\n| name | what it does | parameters |\n|---|---|---|\n").arg(title, where);
    for (const StrategyInfo& s : list) {
        QString name = QStringLiteral("`%1`").arg(s.name);
        if (!s.aliases.isEmpty()) name += QStringLiteral(" (also read: `%1`)").arg(s.aliases.join(QStringLiteral("`, `")));
        md += QStringLiteral("| %1 | %2 | %3 |\n").arg(name, cell(s.summary), parameters(s));
    }
    return md;
}

}  // namespace

QString strategyReferenceMarkdown() {
    QString md = QStringLiteral(
        "# Strategies and their parameters\n\n"
        "Made from the registries by `hips reference` (`tst_registries` fails when this page and the code differ; "
        "`build/bin/hips reference > docs/strategies.md` writes it again). A parameter is a key of the topology's "
        "`training` (or `hips run --param NAME=VALUE`); the party servers' rule takes its parameters as "
        "`party_<name>`, and the codec inside parties as `party_<name>` too. How the schemes work: "
        "[algorithms](algorithms.md); the rest of a topology file: [topology](topology.md).\n");
    md += section(QStringLiteral("Training modes"), QStringLiteral("`training.mode`, `hips run --mode NAME`"), ModeRegistry::all());
    md += section(QStringLiteral("Aggregation rules"),
                  QStringLiteral("`training.aggregation` (the global server's) and `training.party_aggregation` (the party servers'); "
                                 "`--aggregation`, `--party-aggregation`"),
                  AggregatorRegistry::all());
    md += section(QStringLiteral("Server optimizers"), QStringLiteral("`training.server_optimizer`, `--server-optimizer`"),
                  ServerOptimizerRegistry::all());
    md += section(QStringLiteral("Codecs"),
                  QStringLiteral("`training.compression` (across parties) and `training.party_compression` (inside them); "
                                 "`--compression`, `--party-compression`"),
                  CodecRegistry::all());
    md += section(QStringLiteral("Partitions"), QStringLiteral("`training.partition`, `--partition`"), PartitionRegistry::all());
    md +=
        section(QStringLiteral("Built-in models"),
                QStringLiteral("`training.model`, `--model` (or a TorchScript file: [your own model](topology.md))"), ModelRegistry::all());
    md += section(QStringLiteral("Data sets"), QStringLiteral("`training.dataset`, `--dataset`"), DatasetRegistry::all());
    md += section(QStringLiteral("Attacks"), QStringLiteral("`adversary` of a worker group, a party or `training`"),
                  AdversaryRegistry::all());
    md +=
        section(QStringLiteral("Fault policies"), QStringLiteral("`training.fault_policy`, `--fault-policy`"), FaultPolicyRegistry::all());
    md += section(QStringLiteral("Party transports"),
                  QStringLiteral("A party's `transport`, with its parameters beside it in the party (not in `training`): how its "
                                 "workers sum ([Collectives inside a party](algorithms.md#collectives-inside-a-party))"),
                  CollectiveRegistry::all());
    md += section(QStringLiteral("Party launchers"),
                  QStringLiteral("A party's `launcher`: `{\"kind\": NAME, settings}` ([A party that is a Slurm "
                                 "cluster](deployment.md#a-party-that-is-a-slurm-cluster))"),
                  launcherRegistry());
    md += section(QStringLiteral("Differential privacy"),
                  QStringLiteral("`training.privacy.where`, with its other keys as parameters ([Differential privacy](privacy.md))"),
                  PrivacyRegistry::all());
    md += QStringLiteral(
              "\n## A party's own data\n\n`\"data\": {\"format\": NAME, \"path\": PATH, options}` of a party or a "
              "host, and `training.evaluation_data`:\n\n```\n%1```\n")
              .arg(DataFormatRegistry::help());
    return md;
}

}  // namespace hips
