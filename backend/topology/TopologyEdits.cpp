#include "TopologyEdits.h"

#include "TopologyLimits.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace hips {

namespace {

const QStringList kKindNames = {"none", "party", "host", "scheduler", "server", "master_worker", "workers", "state_service"};
const QStringList kPaletteNames = {"party", "host", "scheduler", "server", "master_worker", "workers"};

Party* findParty(Topology& t, const QString& id) {
    for (Party& p : t.parties)
        if (p.id == id) return &p;
    return nullptr;
}

QSet<int> portsOnAddress(const Topology& t, const QString& address) {
    QSet<int> used;
    for (const Party& p : t.parties) {
        QList<ListeningRole> roles = p.servers;
        if (p.scheduler) roles << *p.scheduler;
        if (p.stateService) roles << *p.stateService;
        for (const ListeningRole& r : roles) {
            const Host* h = t.host(r.host);
            if ((h ? h->address : r.host) == address) used.insert(r.port);
        }
    }
    return used;
}

QString uniqueId(const QString& stem, const std::function<bool(const QString&)>& taken) {
    for (int i = 1;; ++i)
        if (const QString id = stem + QString::number(i); !taken(id)) return id;
}

}  // namespace

QString ElementRef::key() const {
    QString k = kKindNames[int(kind)] + '/' + party;
    if (kind == Kind::HostGroup) k += '/' + host;
    if (kind == Kind::Server || kind == Kind::Workers) k += '/' + QString::number(index);
    return k;
}

ElementRef ElementRef::fromKey(const QString& key) {
    const QStringList parts = key.split('/');
    ElementRef r;
    const int kind = int(kKindNames.indexOf(parts.value(0)));
    if (kind <= 0 || parts.size() < 2) return r;
    r.kind = Kind(kind);
    r.party = parts[1];
    if (r.kind == Kind::HostGroup) r.host = parts.value(2);
    if (r.kind == Kind::Server || r.kind == Kind::Workers) r.index = parts.value(2).toInt();
    return r;
}

QString paletteItemName(PaletteItem item) {
    return kPaletteNames[int(item)];
}

std::optional<PaletteItem> paletteItemFromName(const QString& name) {
    const int i = int(kPaletteNames.indexOf(name));
    if (i < 0) return std::nullopt;
    return PaletteItem(i);
}

namespace edits {

QString newPartyId(const Topology& t) {
    return uniqueId(QStringLiteral("party"), [&](const QString& id) { return t.party(id) != nullptr; });
}

QString newHostId(const Topology& t) {
    return uniqueId(QStringLiteral("host"), [&](const QString& id) { return t.host(id) != nullptr; });
}

int freePort(const Topology& t, const QString& hostId) {
    const Host* h = t.host(hostId);
    const QSet<int> used = portsOnAddress(t, h ? h->address : hostId);
    int port = 9100;
    while (used.contains(port)) ++port;
    return port;
}

QString defaultHost(const Topology& t, const QString& partyId) {
    if (const Party* p = t.party(partyId)) {
        if (p->scheduler) return p->scheduler->host;
        if (!p->servers.isEmpty()) return p->servers.first().host;
        if (!p->workers.isEmpty()) return p->workers.first().host;
        if (p->masterWorker) return p->masterWorker->host;
    }
    return t.hosts.isEmpty() ? QString() : t.hosts.first().id;
}

Host localHost(const QString& id) {
    Host h;
    h.id = id;
    return h;
}

static int portAboveParty(const Topology& t, const Party& p, const QString& hostId);

// The first hundred from 9100 up with no port in use on that address: each party gets a block of
// its own, as the shipped topology has them (central 9100…, party1 9200…, party2 9300…).
static int freeHundred(const Topology& t, const QString& hostId) {
    const Host* h = t.host(hostId);
    const QSet<int> used = portsOnAddress(t, h ? h->address : hostId);
    for (int block = 9100; block + 99 <= 65535; block += 100)
        if (std::none_of(used.begin(), used.end(), [block](int port) { return port >= block && port < block + 100; })) return block;
    return freePort(t, hostId);  // every hundred has a port in use: the lowest free one
}

// A new party arrives complete (scheduler, server, one worker) so that it runs as it is dropped.
QString addParty(Topology& t, QPointF position, QString* newId) {
    if (t.hosts.isEmpty()) t.hosts << localHost(QStringLiteral("local"));
    Party p;
    p.id = newPartyId(t);
    p.central = t.centralParty() == nullptr;
    const QString host = t.hosts.first().id;
    p.scheduler = ListeningRole{host, freeHundred(t, host)};
    t.parties << p;
    Party& added = t.parties.last();
    const int serverPort = portAboveParty(t, added, host);
    added.servers << ListeningRole{host, serverPort ? serverPort : freePort(t, host)};
    if (added.central) added.masterWorker = WorkerGroup{host, 1};
    else added.workers << WorkerGroup{host, 1};
    setPartyPosition(t, added.id, position);
    if (newId) *newId = added.id;
    return {};
}

QString addHost(Topology& t, const QString& partyId, QString* newId) {
    Party* p = findParty(t, partyId);
    if (!p) return QObject::tr("drop the host onto a party");
    Host h;
    h.id = newHostId(t);
    h.address = QStringLiteral("127.0.0.1");
    t.hosts << h;
    findParty(t, partyId)->workers << WorkerGroup{h.id, 1};
    if (newId) *newId = h.id;
    return {};
}

QString addRole(Topology& t, PaletteItem role, const QString& partyId, const QString& hostId) {
    Party* p = findParty(t, partyId);
    if (!p) return QObject::tr("drop the role onto a party");
    const QString host = hostId.isEmpty() ? defaultHost(t, partyId) : hostId;
    const int nearby = portAboveParty(t, *p, host);  // beside the party's own ports
    const int port = nearby ? nearby : freePort(t, host);
    switch (role) {
        case PaletteItem::Scheduler:
            if (p->scheduler) return QObject::tr("party '%1' already has a scheduler").arg(partyId);
            p->scheduler = ListeningRole{host, port};
            return {};
        case PaletteItem::Server:
            if (p->servers.isEmpty()) {
                p->servers << ListeningRole{host, port};
                return {};
            }
            return addServerSlice(t, partyId, host);
        case PaletteItem::MasterWorker:
            if (!p->central) return QObject::tr("the master worker belongs in the central party");
            if (p->masterWorker) return QObject::tr("the central party already has a master worker");
            p->masterWorker = WorkerGroup{host, 1};
            return {};
        case PaletteItem::Workers: p->workers << WorkerGroup{host, 1}; return {};
        case PaletteItem::Party:
        case PaletteItem::Host: break;
    }
    return QObject::tr("not a role");
}

// The lowest port above the party's own that is free on `hostId`'s address (0: none left).
static int portAboveParty(const Topology& t, const Party& p, const QString& hostId) {
    int port = p.scheduler ? p.scheduler->port : 0;
    for (const ListeningRole& r : p.servers) port = std::max(port, r.port);
    if (port == 0) port = freeHundred(t, hostId) - 1;  // a party with no port yet: a hundred of its own
    const Host* h = t.host(hostId);
    const QSet<int> used = portsOnAddress(t, h ? h->address : hostId);
    do ++port;
    while (used.contains(port));
    return port <= 65535 ? port : 0;
}

QString setServerCount(Topology& t, int count) {
    if (count < 1 || count > kMaxServersPerParty)
        return QObject::tr("%1 servers per party: give 1 to %2").arg(count).arg(kMaxServersPerParty);
    for (Party& p : t.parties) {
        if (p.collective() && p.servers.isEmpty()) continue;  // (its workers sum among themselves: no server slices)
        if (p.servers.isEmpty()) return QObject::tr("party '%1' has no server to add more beside; add one").arg(p.id);
        const QString host = p.servers.first().host;
        while (p.servers.size() > count) p.servers.removeLast();
        while (p.servers.size() < count) {
            const int port = portAboveParty(t, p, host);
            if (port == 0) return QObject::tr("no free port above %1 on host '%2'").arg(p.servers.last().port).arg(host);
            p.servers << ListeningRole{host, port};
        }
    }
    return {};
}

// A party's servers hold one key slice each, and every party must have as many as the central
// party has global servers: one more server dropped into a party is one more slice everywhere.
QString addServerSlice(Topology& t, const QString& partyId, const QString& host) {
    const int count = int(findParty(t, partyId)->servers.size()) + 1;
    if (QString error = setServerCount(t, count); !error.isEmpty()) return error;
    Party* p = findParty(t, partyId);
    if (p->servers.last().host == host) return {};
    p->servers.removeLast();  // the new one goes where it was dropped
    const int port = portAboveParty(t, *p, host);
    if (port == 0) return QObject::tr("no free port on host '%1'").arg(host);
    p->servers << ListeningRole{host, port};
    return {};
}

namespace {
template <typename List>
void assignIn(List& list) {
    int next = 0;
    for (const auto& e : list) next = std::max(next, e.uid + 1);
    for (auto& e : list)
        if (e.uid < 0) e.uid = next++;
}

template <typename List>
int positionIn(const List& list, int uid) {
    bool any = false;
    for (int i = 0; i < list.size(); ++i) {
        if (list[i].uid == uid) return i;
        any = any || list[i].uid >= 0;
    }
    return !any && uid >= 0 && uid < list.size() ? uid : -1;  // a topology without uids: a position
}
}  // namespace

void assignUids(Topology& t) {
    for (Party& p : t.parties) {
        assignIn(p.servers);
        assignIn(p.workers);
    }
}

int positionOf(const Topology& t, const ElementRef& e) {
    const Party* p = t.party(e.party);
    if (!p) return -1;
    if (e.kind == ElementRef::Kind::Server) return positionIn(p->servers, e.index);
    if (e.kind == ElementRef::Kind::Workers) return positionIn(p->workers, e.index);
    return -1;
}

// The hosts no role runs on, stands by on or logs in through are not drawn, so they go: one the
// user can no longer see still counted (its checks, a deployment over SSH to it). Until
// 2026-12-02 a deleted host's box left its host in the file.
static void dropUnusedHosts(Topology& t) {
    QSet<QString> used;
    const auto use = [&](const QString& host) { used.insert(host); };
    for (const Party& p : t.parties) {
        if (p.scheduler) use(p.scheduler->host), use(p.scheduler->standbyHost);
        if (p.stateService) use(p.stateService->host), use(p.stateService->standbyHost);
        for (const ListeningRole& s : p.servers) use(s.host), use(s.standbyHost);
        if (p.masterWorker) use(p.masterWorker->host), use(p.masterWorker->standbyHost);
        for (const WorkerGroup& g : p.workers) use(g.host);
        if (p.slurm) use(p.slurm->loginHost);
    }
    t.hosts.removeIf([&](const Host& h) { return !used.contains(h.id); });
}

static QString moveRoleOnly(Topology& t, const ElementRef& role, const QString& toParty, const QString& toHost);

QString moveRole(Topology& t, const ElementRef& role, const QString& toParty, const QString& toHost) {
    const QString error = moveRoleOnly(t, role, toParty, toHost);
    if (error.isEmpty()) dropUnusedHosts(t);
    return error;
}

static QString moveRoleOnly(Topology& t, const ElementRef& role, const QString& toParty, const QString& toHost) {
    Party* from = findParty(t, role.party);
    Party* to = findParty(t, toParty);
    if (!from || !to) return QObject::tr("no such party");
    const QString host = toHost.isEmpty() ? defaultHost(t, toParty) : toHost;
    switch (role.kind) {
        case ElementRef::Kind::Workers: {
            const int at = positionOf(t, role);
            if (at < 0) return QObject::tr("no such worker group");
            WorkerGroup g = from->workers.takeAt(at);
            g.host = host;
            if (from != to) g.uid = -1;  // its old one may be taken there
            to->workers << g;
            return {};
        }
        case ElementRef::Kind::Server: {  // one key slice each, as many in every party: moved between hosts only
            const int at = positionOf(t, role);
            if (at < 0) return QObject::tr("no such server");
            if (from != to)
                return QObject::tr(
                    "every party has as many servers as there are global servers, one key slice each: move a "
                    "server between the hosts of its party, and set how many with Servers per party");
            from->servers[at].host = host;  // in place: its rank is its slice
            return {};
        }
        case ElementRef::Kind::Scheduler:
        case ElementRef::Kind::MasterWorker:
        case ElementRef::Kind::StateService: {
            if (from != to)
                return QObject::tr(
                    "a party's scheduler, the master worker and the state service stay in their "
                    "party; move them between hosts only");
            if (role.kind == ElementRef::Kind::Scheduler && from->scheduler) from->scheduler->host = host;
            if (role.kind == ElementRef::Kind::MasterWorker && from->masterWorker) from->masterWorker->host = host;
            if (role.kind == ElementRef::Kind::StateService && from->stateService) from->stateService->host = host;
            return {};
        }
        default: return QObject::tr("only roles can be moved between parties and hosts");
    }
}

// Every party has as many servers as the global servers, one key slice each: a server removed
// from one is that slice removed from every party (when they all have the same number, more than one).
static QList<std::pair<ElementRef, int>> withWholeSlices(const Topology& t, const QList<std::pair<ElementRef, int>>& positions) {
    QList<std::pair<ElementRef, int>> out;
    auto add = [&](const ElementRef& e, int at) {
        const bool known = std::any_of(out.begin(), out.end(), [&](const auto& o) {
            return o.first.kind == e.kind && o.first.party == e.party && o.second == at && at >= 0;
        });
        if (!known) out.append({e, at});
    };
    const qsizetype slices = t.parties.isEmpty() ? 0 : t.parties.first().servers.size();
    const bool sliced =
        slices > 1 && std::all_of(t.parties.begin(), t.parties.end(), [&](const Party& p) { return p.servers.size() == slices; });
    for (const auto& [e, at] : positions) {
        if (e.kind != ElementRef::Kind::Server || !sliced || at < 0) {
            add(e, at);
            continue;
        }
        for (const Party& p : t.parties) add(ElementRef{ElementRef::Kind::Server, p.id, {}, p.servers[at].uid}, at);
    }
    return out;
}

void remove(Topology& t, const QList<ElementRef>& elements) {
    // Positions first, found before anything goes; then the higher positions first, so that
    // removing one group does not shift the next one's.
    QList<std::pair<ElementRef, int>> sorted;
    for (const ElementRef& e : elements) sorted.append({e, positionOf(t, e)});
    sorted = withWholeSlices(t, sorted);
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    QStringList partiesToRemove;
    for (const auto& entry : sorted) {
        const ElementRef& e = entry.first;  // (not a structured binding: the lambdas below capture it)
        const int at = entry.second;
        Party* p = findParty(t, e.party);
        if (!p) continue;
        switch (e.kind) {
            case ElementRef::Kind::Party: partiesToRemove << e.party; break;
            case ElementRef::Kind::HostGroup:
                p->workers.removeIf([&](const WorkerGroup& g) { return g.host == e.host; });
                p->servers.removeIf([&](const ListeningRole& r) { return r.host == e.host; });
                if (p->scheduler && p->scheduler->host == e.host) p->scheduler.reset();
                if (p->masterWorker && p->masterWorker->host == e.host) p->masterWorker.reset();
                if (p->stateService && p->stateService->host == e.host) p->stateService.reset();
                break;
            case ElementRef::Kind::Scheduler: p->scheduler.reset(); break;
            case ElementRef::Kind::StateService: p->stateService.reset(); break;
            case ElementRef::Kind::MasterWorker: p->masterWorker.reset(); break;
            case ElementRef::Kind::Server:
                if (at >= 0) p->servers.removeAt(at);
                break;
            case ElementRef::Kind::Workers:
                if (at >= 0) p->workers.removeAt(at);
                break;
            case ElementRef::Kind::None: break;
        }
    }
    t.parties.removeIf([&](const Party& p) { return partiesToRemove.contains(p.id); });
    dropUnusedHosts(t);
    QJsonObject positions = t.layout.value("parties").toObject();
    for (const QString& id : partiesToRemove) positions.remove(id);
    if (!positions.isEmpty() || t.layout.contains("parties")) t.layout.insert("parties", positions);
}

// The hosts `source`'s roles of `party` run on that `t` lacks (deleted since the copy, with the
// last roles on them): a pasted role's host comes with it.
static void addHostsOf(Topology& t, const Topology& source, const Party& party) {
    QStringList ids;
    if (party.scheduler) ids << party.scheduler->host;
    for (const ListeningRole& s : party.servers) ids << s.host;
    for (const WorkerGroup& g : party.workers) ids << g.host;
    for (const QString& id : ids)
        if (!t.host(id) && source.host(id)) t.hosts << *source.host(id);
}

QList<ElementRef> paste(Topology& t, const Topology& source, const QList<ElementRef>& elements, const QString& targetParty) {
    QList<ElementRef> copies;
    for (const ElementRef& e : elements)
        if (const Party* original = source.party(e.party)) addHostsOf(t, source, *original);
    for (const ElementRef& e : elements) {
        const Party* original = source.party(e.party);
        if (!original) continue;
        if (e.kind == ElementRef::Kind::Party) {
            Party copy = *original;
            copy.id = newPartyId(t);
            copy.central = false;  // there is one central party
            copy.masterWorker.reset();
            copy.stateService.reset();
            copy.servers.clear();
            if (copy.scheduler) copy.scheduler->port = freeHundred(t, copy.scheduler->host);
            t.parties << copy;
            for (const ListeningRole& s : original->servers) {  // one at a time: each takes the next free port
                const int port = portAboveParty(t, t.parties.last(), s.host);
                t.parties.last().servers << ListeningRole{s.host, port ? port : freePort(t, s.host), s.device};
            }
            if (t.parties.last().workers.isEmpty())  // a copy of the central party: an ordinary party needs workers
                t.parties.last().workers << WorkerGroup{copy.scheduler ? copy.scheduler->host : defaultHost(t, copy.id), 1};
            const QPointF at = partyPosition(source, original->id);
            if (!std::isnan(at.x())) setPartyPosition(t, copy.id, at + QPointF(40, 40));
            copies << ElementRef{ElementRef::Kind::Party, copy.id};
        } else if (const int at = positionOf(source, e); e.kind == ElementRef::Kind::Workers && at >= 0) {
            Party* into = findParty(t, targetParty);
            if (!into) into = findParty(t, e.party);
            if (!into) continue;
            WorkerGroup copy = original->workers[at];
            copy.uid = -1;
            into->workers << copy;
            assignUids(t);
            copies << ElementRef{ElementRef::Kind::Workers, into->id, {}, into->workers.last().uid};
        }
    }
    return copies;
}

// One party is central: making another one central hands it the central roles (the master worker,
// the state service) and makes the old one an ordinary party that still trains (a worker group on
// its host when it had none), so the topology stays runnable after one click.
QString setCentral(Topology& t, const QString& partyId, bool central) {
    Party* target = findParty(t, partyId);
    if (!target) return QObject::tr("no party '%1'").arg(partyId);
    if (!central) {  // and the roles only a central party has (the file would not open again)
        target->central = false;
        target->masterWorker.reset();
        target->stateService.reset();
        for (ListeningRole& server : target->servers) server.standbyHost.clear();
        dropUnusedHosts(t);
        return {};
    }
    if (target->central) return {};
    target->wan.reset();  // (the central party is where every WAN leads; it has none of its own)
    target->slurm.reset();
    const QString host = defaultHost(t, partyId);  // where the central roles go
    for (Party& old : t.parties) {
        if (!old.central || old.id == partyId) continue;
        old.central = false;
        const QString oldHost = defaultHost(t, old.id);  // before its master worker goes
        if (old.masterWorker && !target->masterWorker) {  // as it was (its device, its slowdown), on the new party's host
            target->masterWorker = *old.masterWorker;
            target->masterWorker->host = host;
            if (target->masterWorker->standbyHost == host) target->masterWorker->standbyHost.clear();
        }
        old.masterWorker.reset();
        if (old.stateService && !target->stateService) target->stateService = ListeningRole{host, freePort(t, host)};  // (no standby)
        old.stateService.reset();
        for (ListeningRole& server : old.servers) server.standbyHost.clear();  // only global servers have one
        if (old.workers.isEmpty()) old.workers << WorkerGroup{oldHost, 1};
    }
    target->central = true;
    if (!target->masterWorker) target->masterWorker = WorkerGroup{host, 1};
    dropUnusedHosts(t);  // (the old central roles' hosts, the Slurm login host)
    return {};
}

QString renameParty(Topology& t, const QString& from, const QString& to) {
    if (to.isEmpty() || to.contains('/')) return QObject::tr("a party id must be non-empty and without '/'");
    if (from == to) return {};
    if (t.party(to)) return QObject::tr("there is already a party '%1'").arg(to);
    Party* p = findParty(t, from);
    if (!p) return QObject::tr("no party '%1'").arg(from);
    p->id = to;
    QJsonObject positions = t.layout.value("parties").toObject();
    if (positions.contains(from)) {
        positions.insert(to, positions.take(from));
        t.layout.insert("parties", positions);
    }
    return {};
}

QString renameHost(Topology& t, const QString& from, const QString& to) {
    if (to.isEmpty()) return QObject::tr("a host id must not be empty");
    if (from == to) return {};
    if (t.host(to)) return QObject::tr("there is already a host '%1'").arg(to);
    for (Host& h : t.hosts)
        if (h.id == from) h.id = to;
    // Every reference to it: the roles on it, the standby hosts, a Slurm party's login host.
    const auto follow = [&](QString& host) {
        if (host == from) host = to;
    };
    for (Party& p : t.parties) {
        if (p.scheduler) follow(p.scheduler->host), follow(p.scheduler->standbyHost);
        if (p.stateService) follow(p.stateService->host), follow(p.stateService->standbyHost);
        for (ListeningRole& s : p.servers) follow(s.host), follow(s.standbyHost);
        if (p.masterWorker) follow(p.masterWorker->host), follow(p.masterWorker->standbyHost);
        for (WorkerGroup& g : p.workers) follow(g.host);
        if (p.slurm) follow(p.slurm->loginHost);
    }
    return {};
}

QPointF partyPosition(const Topology& t, const QString& party) {
    const QJsonArray xy = t.layout.value("parties").toObject().value(party).toArray();
    if (xy.size() != 2) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
    return {xy[0].toDouble(), xy[1].toDouble()};
}

void setPartyPosition(Topology& t, const QString& party, QPointF position) {
    if (std::isnan(position.x())) return;
    QJsonObject positions = t.layout.value("parties").toObject();
    positions.insert(party, QJsonArray{std::round(position.x()), std::round(position.y())});
    t.layout.insert("parties", positions);
}

ElementRef elementForIssuePath(const Topology& t, const QString& path) {
    // A host's field: its box in the first party that runs a role there.
    static const QRegularExpression hostField(QStringLiteral(R"(^\$\.hosts\[(\d+)\])"));
    if (const QRegularExpressionMatch h = hostField.match(path); h.hasMatch()) {
        const int i = h.captured(1).toInt();
        if (i >= t.hosts.size()) return {};
        for (const Node& n : t.nodes())
            if (n.host == t.hosts[i].id) return {ElementRef::Kind::HostGroup, n.party, n.host};
        return {};
    }
    static const QRegularExpression re(QStringLiteral(R"(^\$\.parties\[(\d+)\](?:\.roles\.(\w+)(?:\[(\d+)\])?)?)"));
    const QRegularExpressionMatch m = re.match(path);
    if (!m.hasMatch()) return {};
    const int partyIndex = m.captured(1).toInt();
    if (partyIndex >= t.parties.size()) return {};
    ElementRef r{ElementRef::Kind::Party, t.parties[partyIndex].id};
    const QString role = m.captured(2);
    if (role == QLatin1String("scheduler") || role == QLatin1String("global_scheduler")) r.kind = ElementRef::Kind::Scheduler;
    else if (role == QLatin1String("servers") || role == QLatin1String("global_servers")) r.kind = ElementRef::Kind::Server;
    else if (role == QLatin1String("master_worker")) r.kind = ElementRef::Kind::MasterWorker;
    else if (role == QLatin1String("state_service")) r.kind = ElementRef::Kind::StateService;
    else if (role == QLatin1String("workers")) r.kind = ElementRef::Kind::Workers;
    if (!m.captured(3).isEmpty()) {  // a position in the file: the element's uid where it has one
        const int at = m.captured(3).toInt();
        const Party& p = t.parties[partyIndex];
        r.index = at;
        if (r.kind == ElementRef::Kind::Server && at < p.servers.size() && p.servers[at].uid >= 0) r.index = p.servers[at].uid;
        if (r.kind == ElementRef::Kind::Workers && at < p.workers.size() && p.workers[at].uid >= 0) r.index = p.workers[at].uid;
    } else if (r.kind == ElementRef::Kind::Server || r.kind == ElementRef::Kind::Workers) {
        r.kind = ElementRef::Kind::Party;
    }
    return r;
}

}  // namespace edits
}  // namespace hips
