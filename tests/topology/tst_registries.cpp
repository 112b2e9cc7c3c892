// The registries (modes, aggregation rules, partitions, models) are the only lists of names and
// parameters: the reader takes names, ranges and defaults from them, refuses a parameter of
// another strategy, and still reads older names; what each mode starts and waits for.
#include "ModeConflicts.h"
#include "GradientCodec.h"
#include "AggregatorRegistry.h"
#include "StrategyReference.h"
#include "ModeRegistry.h"
#include "TopologyReader.h"
#include "BrokenRegistries.h"
#include "TopologyTestSupport.h"
#include "TopologyWriter.h"

#include <QFile>
#include <QtTest>
#include <functional>

using namespace hips;
using namespace hips::test;

class RegistriesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void brokenSetting_data() {
        QTest::addColumn<int>("index");
        const QList<BrokenCase> cases = registryBrokenCases();
        for (int i = 0; i < cases.size(); ++i) QTest::newRow(cases[i].name) << i;
    }

    void brokenSetting() {
        QFETCH(int, index);
        TopologyLoad load;
        const QString missing = missingIssue(registryBrokenCases()[index], &load);
        QVERIFY(!load.ok());
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
    }

    // Every registered mode is named in the message for an unknown one.
    void unknownModeListsEveryMode() {
        QJsonObject t = validTopology();
        set(t, {"training", "mode"}, "gossip");
        const QString text = TopologyReader::readJson(QJsonDocument(t).toJson()).errorText();
        for (const StrategyInfo& m : ModeRegistry::all()) QVERIFY2(text.contains(m.name), qPrintable(text));
    }

    void quorumOfContributors_data() {
        QTest::addColumn<double>("quorum");
        QTest::addColumn<int>("contributors");
        QTest::addColumn<int>("expected");
        QTest::newRow("0: all") << 0.0 << 4 << 4;
        QTest::newRow("a count") << 3.0 << 4 << 3;
        QTest::newRow("a count above the contributors: all") << 9.0 << 4 << 4;
        QTest::newRow("a fraction, rounded up") << 0.5 << 5 << 3;
        QTest::newRow("a small fraction: at least one") << 0.01 << 4 << 1;
        QTest::newRow("0.14 of 100: 14 (not the float's 14.000000000000002 rounded up)") << 0.14 << 100 << 14;
        QTest::newRow("0.28 of 25: 7") << 0.28 << 25 << 7;
    }

    void quorumOfContributors() {
        QFETCH(double, quorum);
        QFETCH(int, contributors);
        QFETCH(int, expected);
        TrainingSettings s;
        s.params.insert("quorum", quorum);
        QCOMPARE(s.quorumOf(contributors), expected);
    }

    // The registries are the only lists: a mode's parameters are read, written back and
    // defaulted from its entry, and an older name still reads as the mode it became.
    void strategySettingsComeFromTheRegistries() {
        QJsonObject t = validTopology();
        set(t, {"training", "mode"}, "dcasgd");
        set(t, {"training", "dc_lambda"}, 0.5);
        TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->training.param("dc_lambda"), 0.5);
        const TopologyLoad again = TopologyReader::readJson(TopologyWriter::toJson(*load.topology));
        QVERIFY2(again.ok(), qPrintable(again.errorText()));
        QCOMPARE(again.topology->training.params, load.topology->training.params);

        set(t, {"training", "dc_lambda"}, QJsonValue(QJsonValue::Undefined));
        load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QCOMPARE(load.topology->training.param("dc_lambda"), ModeRegistry::find("dcasgd")->param("dc_lambda")->defaultValue);

        set(t, {"training", "mode"}, "sync");  // the name before the registry
        load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->training.mode, QStringLiteral("fedavg"));

        Topology edited = *load.topology;  // what the designer and `hips run --param` may set
        edited.training.params.insert("dc_lambda", 1);
        QVERIFY(TopologyReader::validate(edited).first().message.contains("not a setting of mode fedavg"));
    }

    // A mode is its policy: the registry's entry is what policy() and namesWhere() read, an older
    // name reads its mode's, and the combinations validation refuses follow the traits, for every
    // mode alike (one table, ModeConflicts), with the modes that fit offered instead.
    void modesAreTheirTraits() {
        QVERIFY(ModeRegistry::policy("sync").runsFlat);  // fedavg's older name
        QStringList flat;
        for (const ModeInfo& m : ModeRegistry::modes()) {
            const ModePolicy p = ModeRegistry::policy(m.info.name);
            QCOMPARE(p.gradientEveryStep, m.policy.gradientEveryStep);
            QCOMPARE(p.party, m.policy.party);
            QCOMPARE(p.standalone, m.policy.standalone);
            if (p.runsFlat) flat.append(m.info.name);

            TrainingSettings s;
            s.mode = m.info.name;
            s.hierarchy = "flat";
            s.aggregation = "median";
            s.proximalMu = 0.01;
            TopologyIssues issues;
            checkModeConflicts(s, &issues);
            const auto has = [&](const char* path) {
                return std::any_of(issues.begin(), issues.end(), [&](const TopologyIssue& i) { return i.path == QLatin1String(path); });
            };
            QCOMPARE(has("$.training.hierarchy"), !p.runsFlat);
            QCOMPARE(has("$.training.aggregation"), p.global == TierSync::AsPushesCome);
            QCOMPARE(has("$.training.proximal_mu"), p.gradientEveryStep);
        }
        QCOMPARE(ModeRegistry::namesWhere([](const ModePolicy& p) { return p.runsFlat; }), flat);
        QCOMPARE(flat, QStringList({"fedavg", "ssgd"}));

        TrainingSettings s;
        s.mode = "hfa", s.hierarchy = "flat";
        TopologyIssues issues;
        checkModeConflicts(s, &issues);
        QCOMPARE(issues.size(), 1);
        QCOMPARE(issues[0].message, QStringLiteral("a flat run has no party servers; mode hfa needs them: use fedavg or ssgd, or "
                                                   "hierarchy two_layer"));
    }

    // What a mode leaves without effect, from the same traits: the designer greys these out. A
    // setting the mode refuses stays editable, so that it can be changed.
    void modesNameTheSettingsTheyIgnore() {
        TrainingSettings s;
        s.mode = "fedavg";
        QVERIFY(settingsIgnoredByMode(s).isEmpty());
        s.mode = "local";
        const QMap<QString, QString> local = settingsIgnoredByMode(s);
        for (const char* key : {"compression", "party_compression", "aggregation", "server_optimizer", "servers", "hierarchy"})
            QVERIFY2(local.value(key).contains("mode local trains the master worker alone"), key);
        QVERIFY(!local.contains("learning_rate"));
        s.serverOptimizer = "adam";  // its parameters go with it
        QVERIFY(settingsIgnoredByMode(s).contains("server_lr"));
        s.serverOptimizer = "sgd";
        s.hierarchy = "flat";  // refused under local (it has no flat form): the field stays editable
        QVERIFY(!settingsIgnoredByMode(s).contains("hierarchy"));
        QVERIFY(settingsIgnoredByMode(s).contains("compression"));
        s.mode = "fedavg";  // flat: no party tier
        QCOMPARE(settingsIgnoredByMode(s).keys(), QStringList({"party_aggregation", "party_compression"}));
        s.partyCompression = "topk";
        QVERIFY(settingsIgnoredByMode(s).contains("party_codec_ratio"));
        QVERIFY(!settingsIgnoredByMode(s).contains("codec_ratio"));
        s.partyCompression = "none";
        s.hierarchy = "two_layer";
        s.mode = "asgd";
        QCOMPARE(settingsIgnoredByMode(s).value("checkpoint_every"),
                 QString("mode asgd applies pushes as they come and keeps no checkpoints"));
        s.mode = "no such mode";
        QVERIFY(settingsIgnoredByMode(s).isEmpty());
    }

    // The strategies' reference page is made from the registries: every name and parameter is
    // on it, and the page in docs/ is the one the code makes (regenerate it when a registry changes).
    void theReferencePageIsTheRegistries() {
        const QString md = strategyReferenceMarkdown();
        for (const StrategyList* list : {&ModeRegistry::all(), &AggregatorRegistry::all(), &CodecRegistry::all()})
            for (const StrategyInfo& s : *list) {
                QVERIFY2(md.contains(QStringLiteral("| `%1`").arg(s.name)), qPrintable(s.name));
                for (const ParamSpec& p : s.params) QVERIFY2(md.contains(QStringLiteral("`%1`: ").arg(p.name)), qPrintable(p.name));
            }
        QFile page(QStringLiteral(HIPS_SOURCE_DIR "/docs/strategies.md"));
        QVERIFY(page.open(QIODevice::ReadOnly));
        QVERIFY2(QString::fromUtf8(page.readAll()) == md,
                 "docs/strategies.md differs from the registries: build/bin/hips reference > docs/strategies.md");
    }

    // The local baseline starts the master alone, and it is the one training process.
    void localModeStartsTheMasterAlone() {
        Topology t = *TopologyReader::readJson(defaultText()).topology;
        t.training.mode = "local";
        QCOMPARE(t.nodes().size(), 1);
        QCOMPARE(t.nodes().first().kind, RoleKind::MasterWorker);
        QCOMPARE(t.nodeCount(), qint64(1));
        QCOMPARE(t.trainingWorkerCount(), 1);
    }
};

QTEST_GUILESS_MAIN(RegistriesTest)
#include "tst_registries.moc"
