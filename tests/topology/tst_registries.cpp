// The registries (modes, aggregation rules, partitions, models) are the only lists of names and
// parameters: the reader takes names, ranges and defaults from them, refuses a parameter of
// another strategy, and still reads older names; what each mode starts and waits for.
#include "ModeRegistry.h"
#include "TopologyReader.h"
#include "TopologyTestSupport.h"
#include "TopologyWriter.h"

#include <QtTest>
#include <functional>

using namespace hips;
using namespace hips::test;

namespace {

QList<BrokenCase> brokenCases() {
    return {
        {"unknown mode, the registry's names listed", [](QJsonObject& t) { set(t, {"training", "mode"}, "gossip"); },
         "$.training.mode", "'gossip' is not supported; use one of: fedavg, "},
        {"unknown aggregation", [](QJsonObject& t) { set(t, {"training", "aggregation"}, "average"); },
         "$.training.aggregation", "'average' is not supported; use one of: fedavg"},
        {"unknown party aggregation", [](QJsonObject& t) { set(t, {"training", "party_aggregation"}, "vote"); },
         "$.training.party_aggregation", "'vote' is not supported; use one of: fedavg"},
        {"krum at parties too small for its f", [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "krum");
             set(t, {"training", "party_byzantine_f"}, 1);
         },
         "$.training.party_aggregation", "krum needs at least 5 contributions (n > 2f + 2 with byzantine_f 1), and party 'party1' has 2 workers"},
        {"bulyan across too few parties", [](QJsonObject& t) { set(t, {"training", "aggregation"}, "bulyan"); },
         "$.training.aggregation", "bulyan needs at least 7 contributions (n >= 4f + 3 with byzantine_f 1), and 4 workers push to the global server"},
        {"a robust rule where pushes are applied as they come", [](QJsonObject& t) {
             set(t, {"training", "mode"}, "asgd");
             set(t, {"training", "aggregation"}, "median");
         },
         "$.training.aggregation", "mode asgd applies each push at the global server as it comes; aggregation median needs a round's contributions"},
        {"a global rule's parameter given for the parties' fedavg", [](QJsonObject& t) { set(t, {"training", "party_trim_beta"}, 0.2); },
         "$.training.party_trim_beta", "party_trim_beta is not a setting of mode fedavg"},
        {"a Draco code at the global server", [](QJsonObject& t) { set(t, {"training", "aggregation"}, "draco_repetition"); },
         "$.training.aggregation", "draco_repetition codes the workers of one party: set it as party_aggregation"},
        {"repetition groups that do not divide a party", [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_repetition");  // r 3, parties of 2
         },
         "$.training.party_draco_r", "party 'party1' has 2 workers, not a whole number of groups of draco_r 3"},
        {"a Draco code outside fedavg", [](QJsonObject& t) {
             set(t, {"training", "party_aggregation"}, "draco_cyclic");
             set(t, {"training", "mode"}, "esync");
         },
         "$.training.party_aggregation", "draco_cyclic needs mode fedavg"},
        {"a server optimizer where gradients are pushed", [](QJsonObject& t) {
             set(t, {"training", "server_optimizer"}, "adam");
             set(t, {"training", "mode"}, "ssgd");
             set(t, {"training", "model"}, "mlp");
         },
         "$.training.server_optimizer", "mode ssgd has no round of model deltas at the global server for server optimizer adam"},
        {"unknown server optimizer", [](QJsonObject& t) { set(t, {"training", "server_optimizer"}, "lamb"); },
         "$.training.server_optimizer", "'lamb' is not supported; use one of: sgd, momentum, adam, yogi, adagrad"},
        {"an optimizer's parameter for another optimizer", [](QJsonObject& t) { set(t, {"training", "server_beta2"}, 0.9); },
         "$.training.server_beta2", "server_beta2 is not a setting of mode fedavg"},
        {"a parameter of another mode", [](QJsonObject& t) { set(t, {"training", "dc_lambda"}, 0.1); },
         "$.training.dc_lambda", "dc_lambda is not a setting of mode fedavg, aggregation fedavg, party_aggregation fedavg or partition iid"},
        {"a parameter out of its declared range", [](QJsonObject& t) {
             set(t, {"training", "mode"}, "dcasgd");
             set(t, {"training", "dc_lambda"}, -1);
         }, "$.training.dc_lambda", "dc_lambda -1 is out of range; use a number in [0, 1000]"},
        {"a parameter that is not a number", [](QJsonObject& t) {
             set(t, {"training", "mode"}, "dcasgd");
             set(t, {"training", "dc_lambda"}, "high");
         }, "$.training.dc_lambda", "must be a finite number, found a string"},
        {"esync without a state service", [](QJsonObject& t) {
             set(t, {"training", "mode"}, "esync");
             set(t, {"parties", "0", "roles", "state_service"}, QJsonValue(QJsonValue::Undefined));
         }, "$.parties[0].roles", "mode esync needs a state service in the central party"},
        {"a quorum count that is not whole", [](QJsonObject& t) { set(t, {"training", "quorum"}, 2.5); },
         "$.training.quorum", "0 (all), a fraction in (0, 1) or a whole count"},
        {"hfa with central workers training", [](QJsonObject& t) {
             set(t, {"training", "mode"}, "hfa");
             set(t, {"training", "train_central_workers"}, true);
         }, "$.training.train_central_workers", "central workers have none"},
        {"ssgd counted in epochs", [](QJsonObject& t) {
             set(t, {"training", "mode"}, "ssgd");
             set(t, {"training", "local_iters"}, 0);
             set(t, {"training", "local_epochs"}, 1);
         }, "$.training.local_epochs", "counts a round in synchronisations"},
        {"a parameter of a partition not chosen", [](QJsonObject& t) { set(t, {"training", "alpha"}, 0.3); },
         "$.training.alpha", "not a setting of mode fedavg, aggregation fedavg, party_aggregation fedavg or partition iid"},
        {"unknown partition", [](QJsonObject& t) { set(t, {"training", "partition"}, "by_label"); },
         "$.training.partition", "'by_label' is not supported; use one of: iid, by_class, dirichlet"},
        {"gradients for a model with BatchNorm", [](QJsonObject& t) {
             set(t, {"training", "mode"}, "ssgd");
             set(t, {"training", "model"}, "resnet18");
         }, "$.training.model", "BatchNorm statistics have none"},
        {"unknown model", [](QJsonObject& t) { set(t, {"training", "model"}, "vgg"); },
         "$.training.model", "use one of: cnn, mlp, alexnet, resnet18"},
        {"resume past the end", [](QJsonObject& t) { set(t, {"training", "resume_round"}, 20); },
         "$.training.resume_round", "must be below rounds (20)"},
        {"resume an asynchronous mode", [](QJsonObject& t) {
             set(t, {"training", "mode"}, "asgd");
             set(t, {"training", "resume_round"}, 5);
         }, "$.training.resume_round", "only the modes with rounds at the global server resume"},
        {"negative checkpoint period", [](QJsonObject& t) { set(t, {"training", "checkpoint_every"}, -1); },
         "$.training.checkpoint_every", ""},
    };
}

}  // namespace

class RegistriesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void brokenSetting_data() {
        QTest::addColumn<int>("index");
        const QList<BrokenCase> cases = brokenCases();
        for (int i = 0; i < cases.size(); ++i) QTest::newRow(cases[i].name) << i;
    }

    void brokenSetting() {
        QFETCH(int, index);
        TopologyLoad load;
        const QString missing = missingIssue(brokenCases()[index], &load);
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
