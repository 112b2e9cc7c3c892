// The training settings' strategies in the property panel: the mode, the rules, the server
// optimizer, the codecs and the rest from their registries with their parameters, and the
// settings the chosen mode leaves without effect greyed out with the reason.
#include "PropertyPanel.h"

#include "AggregatorRegistry.h"
#include "FaultPolicy.h"
#include "FedOptimizer.h"
#include "GradientCodec.h"
#include "ModeConflicts.h"
#include "ModeRegistry.h"
#include "Partition.h"
#include "PrivacyMechanism.h"
#include "ServerOptimizer.h"
#include "TopologyEdits.h"
#include "TopologyLimits.h"

#include <QFormLayout>
#include <QWidget>
#include <algorithm>

namespace hips {

// Parameters that belong to none of the chosen strategies are dropped with a change.
static void keepOwnParams(TrainingSettings& s) {
    const auto declared = s.declaredParams();
    for (auto it = s.params.begin(); it != s.params.end();) {
        const bool own = std::any_of(declared.begin(), declared.end(), [&](const auto& d) { return d.first == it.key(); });
        it = own ? std::next(it) : s.params.erase(it);
    }
}

// The mode and the rule, and the parameters of each, from their registries.
void PropertyPanel::addStrategies() {
    using T = Topology;
    addChoice(
        "mode", tr("Mode"), strategyNames(ModeRegistry::all()), [](const T& t) { return t.training.mode; },
        [](T& t, const QString& v) {
            t.training.mode = v;
            keepOwnParams(t.training);
        });
    addChoice(
        "aggregation", tr("Aggregation (global)"), AggregatorRegistry::names(), [](const T& t) { return t.training.aggregation; },
        [](T& t, const QString& v) {
            t.training.aggregation = v;
            keepOwnParams(t.training);
        });
    addChoice(
        "party_aggregation", tr("Aggregation (parties)"), AggregatorRegistry::names(),
        [](const T& t) { return t.training.partyAggregation; },
        [](T& t, const QString& v) {
            t.training.partyAggregation = v;
            keepOwnParams(t.training);
        });
    addChoice(
        "hierarchy", tr("Hierarchy"), {QStringLiteral("two_layer"), QStringLiteral("flat")},
        [](const T& t) { return t.training.hierarchy; }, [](T& t, const QString& v) { t.training.hierarchy = v; });
    addCheckedInt(
        "servers", tr("Servers per party (key slicing)"), 1, int(kMaxServersPerParty),
        [](const T& t) { return t.centralParty() ? int(t.centralParty()->servers.size()) : 1; },
        [](T& t, int v) { return edits::setServerCount(t, v); });
    addInt(
        "slice_bound", tr("Slice tensors from (floats)"), 1, 1000000000, [](const T& t) { return t.training.sliceBound; },
        [](T& t, int v) { t.training.sliceBound = v; });
    addChoice(
        "server_optimizer", tr("Server optimizer"), strategyNames(ServerOptimizerRegistry::all()),
        [](const T& t) { return t.training.serverOptimizer; },
        [](T& t, const QString& v) {
            t.training.serverOptimizer = v;
            keepOwnParams(t.training);
        });
    addChoice(
        "compression", tr("Compression (across parties)"), strategyNames(CodecRegistry::all()),
        [](const T& t) { return t.training.compression; },
        [](T& t, const QString& v) {
            t.training.compression = v;
            keepOwnParams(t.training);
        });
    addChoice(
        "party_compression", tr("Compression (inside parties)"), strategyNames(CodecRegistry::all()),
        [](const T& t) { return t.training.partyCompression; },
        [](T& t, const QString& v) {
            t.training.partyCompression = v;
            keepOwnParams(t.training);
        });
    addDouble(
        "proximal_mu", tr("FedProx μ (0: off)"), 0, 100, 4, [](const T& t) { return t.training.proximalMu; },
        [](T& t, double v) { t.training.proximalMu = v; });
    addDouble(
        "clients_per_round", tr("Workers per round (0: all)"), 0, 1e6, 3, [](const T& t) { return t.training.clientsPerRound; },
        [](T& t, double v) { t.training.clientsPerRound = v; });
    m_form->itemAt(m_form->rowCount() - 1, QFormLayout::FieldRole)
        ->widget()
        ->setToolTip(
            tr("client sampling: each round a seeded draw of this many training workers (a fraction below 1: that share of them) trains; "
               "the others sit the round out"));
    addPrivacy();
    addSecureAggregation();
    addChoice(
        "fault_policy", tr("When a process dies"), strategyNames(FaultPolicyRegistry::all()),
        [](const T& t) { return t.training.faultPolicy; },
        [](T& t, const QString& v) {
            t.training.faultPolicy = v;
            keepOwnParams(t.training);
        });
    addChoice(
        "trainer_processes", tr("Workers of a host run in"),
        {QStringLiteral("auto"), QStringLiteral("per_worker"), QStringLiteral("per_host")},
        [](const T& t) { return t.training.trainerProcesses; }, [](T& t, const QString& v) { t.training.trainerProcesses = v; });
    m_form->itemAt(m_form->rowCount() - 1, QFormLayout::FieldRole)
        ->widget()
        ->setToolTip(tr("per_worker: a process each; per_host: threads of one shared trainer (one LibTorch runtime; a crash takes the "
                        "host's other workers along); auto: per_host where a host runs more than 8 workers"));
    addChoice(
        "transport_security", tr("Transport security"), {QStringLiteral("curve"), QStringLiteral("sealed")},
        [](const T& t) { return t.training.transportSecurity; }, [](T& t, const QString& v) { t.training.transportSecurity = v; });
    m_form->itemAt(m_form->rowCount() - 1, QFormLayout::FieldRole)
        ->widget()
        ->setToolTip(tr("curve: ZeroMQ's CURVE seals every byte; sealed: CURVE keeps the identities and headers, and the models "
                        "and updates go sealed with AES-256-GCM beside it (faster)"));
    addChoice(
        "partition", tr("Partition"), strategyNames(PartitionRegistry::all()), [](const T& t) { return t.training.partition; },
        [](T& t, const QString& v) {
            t.training.partition = v;
            keepOwnParams(t.training);
        });
    for (const auto& [setting, spec] : m_topology.training.declaredParams()) {
        const QString name = setting;
        const ParamSpec& p = *spec;
        auto get = [name](const T& t) { return t.training.param(name); };
        auto set = [name](T& t, double v) { t.training.params.insert(name, v); };
        if (p.type == ParamSpec::Type::Integer)
            addInt(
                name, name, int(p.min), int(p.max), [get](const T& t) { return int(get(t)); }, [set](T& t, int v) { set(t, v); });
        else addDouble(name, name, p.min, p.max, 4, get, set);
        m_form->itemAt(m_form->rowCount() - 1, QFormLayout::FieldRole)->widget()->setToolTip(p.help);
    }
}

// Differential privacy: off, or where the noise is added, and then its clip norm, noise
// multiplier (0: "auto", from target ε and the rounds), δ and target ε (0: none).
void PropertyPanel::addPrivacy() {
    using T = Topology;
    addChoice(
        "privacy", tr("Differential privacy"), QStringList{QStringLiteral("off")} + strategyNames(PrivacyRegistry::all()),
        [](const T& t) { return t.training.privacy ? t.training.privacy->where : QStringLiteral("off"); },
        [](T& t, const QString& v) {
            if (v == QLatin1String("off")) return t.training.privacy.reset();
            if (!t.training.privacy) t.training.privacy = PrivacySettings{};
            t.training.privacy->where = v;
        });
    m_form->itemAt(m_form->rowCount() - 1, QFormLayout::FieldRole)
        ->widget()
        ->setToolTip(tr("party: each party server clips its workers' updates, sums them and adds Gaussian noise once, before anything "
                        "leaves the party (central DP at the party); worker: each worker noises its own update (local DP)"));
    if (!m_topology.training.privacy) return;
    auto privacy = [](T& t) -> PrivacySettings& { return *t.training.privacy; };
    addDouble(
        "clip_norm", tr("Clip norm"), 1e-6, 1e6, 4, [](const T& t) { return t.training.privacy->clipNorm; },
        [privacy](T& t, double v) { privacy(t).clipNorm = v; });
    addDouble(
        "noise_multiplier", tr("Noise multiplier (0: auto from target ε)"), 0, 1000, 4,
        [](const T& t) { return t.training.privacy->autoNoise ? 0.0 : t.training.privacy->noiseMultiplier; },
        [privacy](T& t, double v) {
            privacy(t).autoNoise = v < 0.01;
            privacy(t).noiseMultiplier = v < 0.01 ? 0 : v;
        });
    addDouble(
        "delta", tr("δ"), 1e-12, 0.01, 12, [](const T& t) { return t.training.privacy->delta; },
        [privacy](T& t, double v) { privacy(t).delta = v; });
    addDouble(
        "target_epsilon", tr("Target ε (0: none)"), 0, 1000, 3, [](const T& t) { return t.training.privacy->targetEpsilon.value_or(0); },
        [privacy](T& t, double v) { privacy(t).targetEpsilon = v > 0 ? std::optional(v) : std::nullopt; });
}

// Secure aggregation: on or off, and when on, the shares that recover a dropped party's masks.
void PropertyPanel::addSecureAggregation() {
    using T = Topology;
    addBool(
        "secure_aggregation", tr("Secure aggregation"), [](const T& t) { return t.training.secureAggregation; },
        [](T& t, bool v) {
            t.training.secureAggregation = v;
            if (!v) t.training.secureAggregationThreshold = 0;
        });
    m_form->itemAt(m_form->rowCount() - 1, QFormLayout::FieldRole)
        ->widget()
        ->setToolTip(tr("each party server's sum goes up masked with keys it shares with the other party servers: the global server "
                        "learns only the parties' total"));
    if (!m_topology.training.secureAggregation) return;
    addInt(
        "secure_aggregation_threshold", tr("Shares that recover a party (0: a majority)"), 0, 255,
        [](const T& t) { return t.training.secureAggregationThreshold; }, [](T& t, int v) { t.training.secureAggregationThreshold = v; });
    m_form->itemAt(m_form->rowCount() - 1, QFormLayout::FieldRole)
        ->widget()
        ->setToolTip(tr("a party that drops out has its masks recovered from this many other parties' shares; fewer parties than "
                        "this, colluding, learn nothing of its key"));
}

// The training settings the mode leaves without effect are greyed out, saying why in their
// tooltip (the field's own help comes back when the mode changes).
void PropertyPanel::markIgnoredSettings() {
    if (m_element.kind != ElementRef::Kind::None) return;
    const QMap<QString, QString> ignored = settingsIgnoredByMode(m_topology.training);
    for (const Binding& b : m_bindings) {
        const QString why = ignored.value(b.widget->objectName());
        if (!b.widget->property("help").isValid()) b.widget->setProperty("help", b.widget->toolTip());
        b.widget->setEnabled(why.isEmpty());
        b.widget->setToolTip(why.isEmpty() ? b.widget->property("help").toString() : why);
        if (QWidget* label = m_form->labelForField(b.widget)) {
            label->setEnabled(why.isEmpty());
            label->setToolTip(why);
        }
    }
}

}  // namespace hips
