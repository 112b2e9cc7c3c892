#pragma once
// Edits of a topology as the designer makes them, on plain values: each takes a Topology and
// changes it, or says why it cannot. The GUI wraps them in undo commands (snapshots of the
// whole topology, which is small); nothing here knows about widgets.
#include "Topology.h"

#include <QPointF>

namespace hips {

// One element of a topology the designer draws and the user selects.
struct ElementRef {
    enum class Kind { None, Party, HostGroup, Scheduler, Server, MasterWorker, Workers, StateService };
    ElementRef() = default;
    ElementRef(Kind k, QString partyId, QString hostId = {}, int i = 0)
        : kind(k), party(std::move(partyId)), host(std::move(hostId)), index(i) {}

    Kind kind = Kind::None;
    QString party;
    QString host;  // HostGroup: the host of the group
    // Server, Workers: the element's uid (assignUids), which stays its own when a sibling goes;
    // its position in the party's list where the topology has no uids.
    int index = 0;

    QString key() const;  // stable text form, e.g. "party1/workers/0"
    static ElementRef fromKey(const QString& key);
    bool isRole() const { return kind >= Kind::Scheduler; }
    bool operator==(const ElementRef& o) const { return key() == o.key(); }
};

// What the palette offers.
enum class PaletteItem { Party, Host, Scheduler, Server, MasterWorker, Workers };
QString paletteItemName(PaletteItem item);  // "party", "host", ...; also the drag-and-drop payload
std::optional<PaletteItem> paletteItemFromName(const QString& name);

namespace edits {

QString newPartyId(const Topology& t);
QString newHostId(const Topology& t);
int freePort(const Topology& t, const QString& hostId);  // the lowest port >= 9100 not used on that address

// The host a role of `party` goes on when none is named: the party's first role's host, else the first host.
QString defaultHost(const Topology& t, const QString& party);
Host localHost(const QString& id);  // a host on 127.0.0.1 with the defaults

// Each returns an empty string on success, else why the edit cannot be made.
QString addParty(Topology& t, QPointF position, QString* newId = nullptr);
QString addHost(Topology& t, const QString& party, QString* newId = nullptr);  // a new host holding one worker of `party`
QString addRole(Topology& t, PaletteItem role, const QString& party, const QString& host);
// Key slicing: `count` global servers and `count` servers in every party (a new one on the host
// of the party's first, at the lowest free port above the party's own), or the extras removed.
QString setServerCount(Topology& t, int count);
// One more server in `party` (on `host`), and so one more key slice: every party and the global
// servers get one too, as setServerCount(n + 1) does.
QString addServerSlice(Topology& t, const QString& party, const QString& host);
// Gives each server and worker group without a uid one unique in its party, in list order after
// the highest in use: the same topology always gets the same uids.
void assignUids(Topology& t);
// The position in its party's list of the server or worker group `e` names, or -1.
int positionOf(const Topology& t, const ElementRef& e);

QString moveRole(Topology& t, const ElementRef& role, const QString& toParty, const QString& toHost);
void remove(Topology& t, const QList<ElementRef>& elements);
// Pastes copies of `elements` of `source` (a snapshot taken at copy time) into `t`: parties get
// fresh ids and ports and sit next to the originals; worker groups go to `targetParty` when it
// exists, else to their own party. Returns the new elements.
QList<ElementRef> paste(Topology& t, const Topology& source, const QList<ElementRef>& elements, const QString& targetParty = {});
// Makes `party` the central party (the one that was central becomes an ordinary party: see the
// definition), or an ordinary one.
QString setCentral(Topology& t, const QString& party, bool central);
QString renameParty(Topology& t, const QString& from, const QString& to);
QString renameHost(Topology& t, const QString& from, const QString& to);

QPointF partyPosition(const Topology& t, const QString& party);  // (nan, nan) when never placed
void setPartyPosition(Topology& t, const QString& party, QPointF position);

// The element a validation issue's JSON path points at (None for settings and the like).
ElementRef elementForIssuePath(const Topology& t, const QString& path);

}  // namespace edits
}  // namespace hips
