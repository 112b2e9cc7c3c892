// The property panel's launcher fields of a party: SSH (its hosts are machines the controller
// deploys to), or a Slurm cluster, with the batch job's settings (PartyLauncher.h); and its
// transport inside: a party server, or a collective (Collective.h).
#include "PropertyPanel.h"

#include "Collective.h"
#include "PartyLauncher.h"

#include <QLineEdit>

namespace hips {

namespace {

Party* partyIn(Topology& t, const QString& id) {
    for (Party& p : t.parties)
        if (p.id == id) return &p;
    return nullptr;
}

}  // namespace

void PropertyPanel::addPartyLauncher(const QString* id) {
    QStringList kinds, help;
    for (const StrategyInfo& k : launcherRegistry()) {
        kinds << k.name;
        help << k.name + QStringLiteral(": ") + k.summary;
    }
    addChoice(
        "party_launcher", tr("Launcher"), kinds,
        [id](const Topology& t) { return t.party(*id) && t.party(*id)->slurm ? QStringLiteral("slurm") : QStringLiteral("ssh"); },
        [id](Topology& t, const QString& v) {
            Party* p = partyIn(t, *id);
            if (!p) return;
            if (v != QLatin1String("slurm")) p->slurm.reset();
            else if (!p->slurm) p->slurm = SlurmLauncher{};
        });
    field(QStringLiteral("party_launcher"))->setToolTip(help.join('\n'));
    const Party* current = m_topology.party(*id);
    if (!current || !current->slurm) return;

    const QString thisMachine = tr("this machine");
    QStringList logins{thisMachine};
    for (const Host& h : m_topology.hosts) logins << h.id;
    addChoice(
        "party_login_host", tr("Login host (submits the job)"), logins,
        [id, thisMachine](const Topology& t) {
            const Party* p = t.party(*id);
            return p && p->slurm && !p->slurm->loginHost.isEmpty() ? p->slurm->loginHost : thisMachine;
        },
        [id, thisMachine](Topology& t, const QString& v) {
            if (Party* p = partyIn(t, *id); p && p->slurm) p->slurm->loginHost = v == thisMachine ? QString() : v;
        });
    auto text = [&](const char* name, const QString& label, QString SlurmLauncher::*member) {
        addText(
            name, label,
            [id, member](const Topology& t) { return t.party(*id) && t.party(*id)->slurm ? (*t.party(*id)->slurm).*member : QString(); },
            [id, member](Topology& t, const QString& v) {
                if (Party* p = partyIn(t, *id); p && p->slurm) (*p->slurm).*member = v.trimmed();
                return QString();
            });
    };
    auto number = [&](const char* name, const QString& label, int SlurmLauncher::*member) {
        const ParamSpec* spec = launcherRegistry().at(1).param(QString::fromLatin1(name).mid(6));  // (after "party_")
        addInt(
            name, label, int(spec->min), int(spec->max),
            [id, member](const Topology& t) { return t.party(*id) && t.party(*id)->slurm ? (*t.party(*id)->slurm).*member : 0; },
            [id, member](Topology& t, int v) {
                if (Party* p = partyIn(t, *id); p && p->slurm) (*p->slurm).*member = v;
            });
    };
    text("party_partition", tr("Partition"), &SlurmLauncher::partition);
    text("party_account", tr("Account"), &SlurmLauncher::account);
    number("party_nodes", tr("Nodes"), &SlurmLauncher::nodes);
    number("party_tasks_per_node", tr("Tasks per node"), &SlurmLauncher::tasksPerNode);
    number("party_gpus_per_node", tr("GPUs per node"), &SlurmLauncher::gpusPerNode);
    text("party_time_limit", tr("Time limit (HH:MM:SS)"), &SlurmLauncher::timeLimit);
    text("party_install_dir", tr("Shared install directory"), &SlurmLauncher::installDir);
    number("party_queue_patience_s", tr("Queue patience (s)"), &SlurmLauncher::queuePatienceS);
    addText(
        "party_sbatch_options", tr("sbatch options"),
        [id](const Topology& t) {
            return t.party(*id) && t.party(*id)->slurm ? t.party(*id)->slurm->sbatchOptions.join(QLatin1Char(' ')) : QString();
        },
        [id](Topology& t, const QString& v) {
            if (Party* p = partyIn(t, *id); p && p->slurm) p->slurm->sbatchOptions = v.split(QLatin1Char(' '), Qt::SkipEmptyParts);
            return QString();
        });
    field(QStringLiteral("party_sbatch_options"))
        ->setToolTip(tr("Separated by spaces, each --name=value, from: %1").arg(allowedSbatchOptions().join(", ")));
}

// How the party's workers sum (Party::transport): a party server, or a collective among them,
// with the collective's own settings from its registry.
void PropertyPanel::addPartyTransport(const QString* id) {
    auto party = [id](Topology& t) -> Party* {
        for (Party& p : t.parties)
            if (p.id == *id) return &p;
        return nullptr;
    };
    addChoice(
        "party_transport", tr("Transport inside the party"), CollectiveRegistry::names(),
        [id](const Topology& t) { return t.party(*id) ? t.party(*id)->transport : QStringLiteral("server"); },
        [party](Topology& t, const QString& v) {
            Party* p = party(t);
            if (!p) return;
            p->transport = v;
            const StrategyInfo* info = CollectiveRegistry::find(v);
            for (auto it = p->transportParams.begin(); it != p->transportParams.end();)  // the new one's only
                it = info && info->param(it.key()) ? std::next(it) : p->transportParams.erase(it);
        });
    QStringList help;
    for (const StrategyInfo& s : CollectiveRegistry::all()) help << s.name + QStringLiteral(": ") + s.summary;
    field(QStringLiteral("party_transport"))->setToolTip(help.join('\n'));
    const Party* current = m_topology.party(*id);
    const StrategyInfo* info = current ? CollectiveRegistry::find(current->transport) : nullptr;
    if (!info) return;
    for (const ParamSpec& spec : info->params) {
        const QString name = spec.name;
        auto get = [id, name](const Topology& t) { return t.party(*id) ? t.party(*id)->transportParam(name) : 0.0; };
        auto set = [party, name](Topology& t, double v) {
            if (Party* p = party(t)) p->transportParams.insert(name, v);
        };
        if (spec.type == ParamSpec::Type::Integer)
            addInt(
                QStringLiteral("party_") + name, name, int(spec.min), int(spec.max), [get](const Topology& t) { return int(get(t)); },
                [set](Topology& t, int v) { set(t, v); });
        else addDouble(QStringLiteral("party_") + name, name, spec.min, spec.max, 3, get, set);
        field(QStringLiteral("party_") + name)->setToolTip(spec.help);
    }
}

}  // namespace hips
