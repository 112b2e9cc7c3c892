#include "DesignerScene.h"

#include "PartyLauncher.h"

#include "EdgeRouter.h"

#include <QApplication>
#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSceneDragDropEvent>
#include <QGraphicsSceneMouseEvent>
#include <QMimeData>
#include <cmath>

namespace hips {

using namespace designer;

namespace {

struct RoleChip {
    ElementRef ref;
    QString title, subtitle, host;
};

// The roles of a party in drawing order, each with the host it runs on.
QList<RoleChip> chipsOf(const Party& p) {
    QList<RoleChip> chips;
    using K = ElementRef::Kind;
    if (p.scheduler)
        chips << RoleChip{{K::Scheduler, p.id},
                          p.central ? QObject::tr("global scheduler") : QObject::tr("scheduler"),
                          QStringLiteral(":%1").arg(p.scheduler->port),
                          p.scheduler->host};
    for (int i = 0; i < p.servers.size(); ++i)
        chips << RoleChip{{K::Server, p.id, {}, p.servers[i].uid >= 0 ? p.servers[i].uid : i},
                          p.central        ? QObject::tr("global server %1").arg(i)
                          : p.collective() ? QObject::tr("server %1 (unused)").arg(i)  // its workers sum among themselves
                                           : QObject::tr("server %1").arg(i),
                          QStringLiteral(":%1").arg(p.servers[i].port),
                          p.servers[i].host};
    if (p.stateService)  // drawn whatever the mode: its port is taken either way
        chips << RoleChip{
            {K::StateService, p.id}, QObject::tr("state service"), QStringLiteral(":%1").arg(p.stateService->port), p.stateService->host};
    if (p.masterWorker) chips << RoleChip{{K::MasterWorker, p.id}, QObject::tr("master worker"), {}, p.masterWorker->host};
    for (int i = 0; i < p.workers.size(); ++i) {
        const WorkerGroup& g = p.workers[i];
        const std::optional<AdversarySpec>& attack = g.adversary ? g.adversary : p.adversary;  // shown on the chip
        chips << RoleChip{
            {K::Workers, p.id, {}, g.uid >= 0 ? g.uid : i},
            attack ? QObject::tr("workers · %1").arg(attack->kind) : QObject::tr("workers"),
            QStringLiteral("×%1%2").arg(g.count).arg(g.device == QLatin1String("cpu") ? QString() : QStringLiteral(" ") + g.device),
            g.host};
    }
    return chips;
}

}  // namespace

DesignerScene::DesignerScene(QObject* parent) : QGraphicsScene(parent) {}

void DesignerScene::setTopology(const Topology& topology, const TopologyIssues& issues) {
    TopologyChange everything;
    everything.everything = true;
    update(topology, issues, everything);
}

void DesignerScene::update(const Topology& topology, const TopologyIssues& issues, const TopologyChange& change) {
    const QList<ElementRef> selected = selectedElements();
    m_topology = topology;
    m_issues = issues;
    // Parties without a place of their own are laid out in a row: a new one, one that changed
    // size, or one that lost its place (an undone first drag) moves the others, so all are redrawn.
    auto unplaced = [&](const QString& id) { return std::isnan(edits::partyPosition(m_topology, id).x()); };
    bool redrawAll = change.everything || change.hosts;
    for (const QString& id : change.parties)
        redrawAll = redrawAll || (m_topology.party(id) && unplaced(id) && !m_items.contains(ElementRef(ElementRef::Kind::Party, id).key()));
    if (change.layout)
        for (const Party& p : m_topology.parties) redrawAll = redrawAll || unplaced(p.id);
    if (redrawAll) return build(), selectElements(selected);
    // An unplaced party that changed size may move the others: a wider one those after it in
    // the row, a taller central one the whole row (more global servers drew it over the row).
    auto extent = [&](const QString& id, const DesignerItem* box) {
        const Party* p = m_topology.party(id);
        return p && p->central ? box->rect().height() : box->rect().width();
    };
    QHash<QString, qreal> extents;  // of the unplaced parties about to be redrawn
    for (const QString& id : change.parties)
        if (DesignerItem* box = m_items.value(ElementRef(ElementRef::Kind::Party, id).key()); box && unplaced(id))
            extents.insert(id, extent(id, box));
    for (const QString& id : change.parties) replaceParty(id);
    for (auto it = extents.begin(); it != extents.end(); ++it)
        if (DesignerItem* box = m_items.value(ElementRef(ElementRef::Kind::Party, it.key()).key()); !box || extent(it.key(), box) != *it)
            return build(), selectElements(selected);
    settleParties();  // a dragged party where it was dropped, an undone drag back, a grown one's neighbours aside
    addEdges();
    markIssues();
    selectElements(selected);
}

// The party's box and everything in it, drawn anew from the topology where it was (or at its
// layout position), or gone when the party is.
void DesignerScene::replaceParty(const QString& id) {
    DesignerItem* old = m_items.value(ElementRef(ElementRef::Kind::Party, id).key());
    const QPointF at = old ? old->pos() : edits::partyPosition(m_topology, id);
    removeParty(id);
    if (const Party* p = m_topology.party(id)) addParty(*p, std::isnan(at.x()) ? QPointF() : at);
}

void DesignerScene::removeParty(const QString& id) {
    DesignerItem* box = m_items.value(ElementRef(ElementRef::Kind::Party, id).key());
    for (auto it = m_items.begin(); it != m_items.end();) it = (*it)->ref().party == id ? m_items.erase(it) : std::next(it);
    if (!box) return;
    removeItem(box);
    delete box;  // and its host groups and chips
}

DesignerItem* DesignerScene::addParty(const Party& party, QPointF position) {
    auto* box = new DesignerItem({ElementRef::Kind::Party, party.id}, party.id,
                                 party.central ? QStringLiteral("central")
                                 : party.slurm ? QObject::tr("Slurm job")
                                               : QString());
    m_items.insert(box->ref().key(), box);
    // Host groups side by side, in the order of the topology's hosts.
    const QList<RoleChip> chips = chipsOf(party);
    qreal x = kGap * 2;
    qreal height = 0;
    for (const Host& host : m_topology.hosts) {
        QList<RoleChip> mine;
        for (const RoleChip& c : chips)
            if (c.host == host.id) mine << c;
        if (mine.isEmpty()) continue;
        // (A Slurm party's hosts are its job's nodes, in the order its roles name them.)
        const QString where = party.slurm ? QObject::tr("node %1").arg(partyHosts(party).indexOf(host.id)) : host.address;
        auto* group = new DesignerItem({ElementRef::Kind::HostGroup, party.id, host.id}, host.id, where, box);
        group->setFlag(QGraphicsItem::ItemIsMovable, false);
        m_items.insert(group->ref().key(), group);
        const qreal h = kHeaderH - 4 + mine.size() * (kRoleH + kGap) + kGap;
        group->setRect(0, 0, kRoleW + 2 * kGap + 10, h);
        group->setPos(x, kHeaderH + 4);
        for (int i = 0; i < mine.size(); ++i) {
            auto* chip = new DesignerItem(mine[i].ref, mine[i].title, mine[i].subtitle, group);
            chip->setRect(0, 0, kRoleW, kRoleH);
            chip->setPos(kGap + 10, kHeaderH - 4 + i * (kRoleH + kGap));
            m_items.insert(chip->ref().key(), chip);
        }
        x += group->rect().width() + kGap;
        height = std::max(height, h);
    }
    // Roles on hosts the topology does not declare still show (and carry their issue).
    QList<RoleChip> orphans;
    for (const RoleChip& c : chips)
        if (!m_topology.host(c.host)) orphans << c;
    for (int i = 0; i < orphans.size(); ++i) {
        const RoleChip& c = orphans[i];
        auto* chip = new DesignerItem(c.ref, c.title, QObject::tr("host '%1'?").arg(c.host), box);
        chip->setRect(0, 0, kRoleW, kRoleH);
        chip->setPos(x, kHeaderH + 4 + i * (kRoleH + kGap));
        m_items.insert(chip->ref().key(), chip);
        height = std::max(height, (i + 1) * (kRoleH + kGap));
    }
    if (!orphans.isEmpty()) x += kRoleW + kGap;
    box->setRect(0, 0, std::max<qreal>(x + kGap, 200), kHeaderH + 4 + std::max<qreal>(height, kRoleH) + 2 * kGap);
    box->setPos(position);
    addItem(box);
    return box;
}

void DesignerScene::build() {
    clear();
    m_items.clear();
    m_edgeItems.clear();
    m_edges = 0;
    // Parties never placed go in the default arrangement: central on top, the others in a row.
    // The row goes below the central party however tall its roles make it (key slicing adds servers).
    qreal rowX = 0, rowY = 260;
    QList<DesignerItem*> row;
    for (const Party& p : m_topology.parties) {
        QPointF at = edits::partyPosition(m_topology, p.id);
        const bool placed = !std::isnan(at.x());
        DesignerItem* box = addParty(p, placed ? at : QPointF());
        if (placed) continue;
        if (p.central) box->setPos(0, 0), rowY = std::max(rowY, box->rect().height() + 40);
        else row << box;
    }
    m_laidOut.clear();
    for (DesignerItem* box : row) m_laidOut.insert(box->ref().party, QPointF(rowX, rowY)), rowX += box->rect().width() + 40;
    for (const Party& p : m_topology.parties)
        if (p.central && std::isnan(edits::partyPosition(m_topology, p.id).x())) m_laidOut.insert(p.id, QPointF(0, 0));
    settleParties();
    markIssues();
    addEdges();
}

QPointF DesignerScene::wishedPosition(const QString& party) const {
    const QPointF placed = edits::partyPosition(m_topology, party);
    return std::isnan(placed.x()) ? m_laidOut.value(party) : placed;
}

// Parties stand where they were put (or laid out) unless that overlaps a party settled before
// them, top left first: then they move right or down, whichever is less, until they are clear.
// A party that grows thus pushes its neighbours aside instead of being drawn over them, and as
// the result depends on the topology alone, a saved file opens as it was seen.
void DesignerScene::settleParties() {
    constexpr qreal kMargin = 30;
    QList<DesignerItem*> boxes;
    for (const Party& p : m_topology.parties)
        if (DesignerItem* box = m_items.value(ElementRef(ElementRef::Kind::Party, p.id).key()))
            box->setPos(wishedPosition(p.id)), boxes << box;
    std::stable_sort(boxes.begin(), boxes.end(), [](const DesignerItem* a, const DesignerItem* b) {
        return a->pos().x() + a->pos().y() < b->pos().x() + b->pos().y();
    });
    QList<QRectF> settled;
    for (DesignerItem* box : std::as_const(boxes)) {
        QRectF r = box->sceneBoundingRect();
        for (int guard = 0; guard < 1000; ++guard) {  // each step moves right or down: it ends
            const auto hit = std::find_if(settled.cbegin(), settled.cend(),
                                          [&](const QRectF& s) { return s.adjusted(-kMargin, -kMargin, kMargin, kMargin).intersects(r); });
            if (hit == settled.cend()) break;
            const qreal right = hit->right() + kMargin - r.left(), down = hit->bottom() + kMargin - r.top();
            r.translate(right <= down ? QPointF(right, 0) : QPointF(0, down));
        }
        box->setPos(box->pos() + r.topLeft() - box->sceneBoundingRect().topLeft());
        settled << r;
    }
}

QList<ElementRef> DesignerScene::elements() const {
    QList<ElementRef> out;
    for (const DesignerItem* item : m_items) out << item->ref();
    return out;
}

void DesignerScene::markIssues() {
    for (DesignerItem* item : std::as_const(m_items)) item->setIssue({});
    for (const TopologyIssue& issue : m_issues) {
        ElementRef ref = edits::elementForIssuePath(m_topology, issue.path);
        if (ref.kind == ElementRef::Kind::HostGroup) {  // a host's issue: its box in every party that uses it
            for (DesignerItem* item : std::as_const(m_items))
                if (item->ref().kind == ElementRef::Kind::HostGroup && item->ref().host == ref.host) item->setIssue(issue.message);
            continue;
        }
        DesignerItem* target = m_items.value(ref.key());
        if (!target && ref.kind != ElementRef::Kind::None) target = m_items.value(ElementRef{ElementRef::Kind::Party, ref.party}.key());
        if (target) target->setIssue(issue.message);
    }
}

void DesignerScene::addEdges() {
    for (QGraphicsItem* edge : std::as_const(m_edgeItems)) {  // the hierarchy's lines, derived anew
        removeItem(edge);
        delete edge;
    }
    m_edgeItems.clear();
    m_edges = 0;
    const Party* central = m_topology.centralParty();
    auto roleItem = [&](ElementRef::Kind kind, const QString& party, int index = 0) {
        return m_items.value(ElementRef{kind, party, {}, index}.key());
    };
    auto add = [&](EdgeItem* edge) {
        m_edgeItems << edge;
        addItem(edge);
        ++m_edges;
    };
    auto addInside = [&](const DesignerItem* worker, const DesignerItem* server) {
        if (worker && server) add(new EdgeItem(worker, server));
    };
    using K = ElementRef::Kind;
    QList<QRectF> boxes;  // what the lines across parties go around
    for (const Party& p : m_topology.parties)
        if (const DesignerItem* box = m_items.value(ElementRef(K::Party, p.id).key())) boxes << box->sceneBoundingRect();
    for (const Party& p : m_topology.parties) {
        for (int s = 0; s < (p.collective() && !p.central ? 0 : p.servers.size()); ++s) {  // key slicing: a slice to each server
            DesignerItem* server = roleItem(K::Server, p.id, p.servers[s].uid >= 0 ? p.servers[s].uid : s);
            for (int i = 0; i < p.workers.size(); ++i)
                addInside(roleItem(K::Workers, p.id, p.workers[i].uid >= 0 ? p.workers[i].uid : i), server);
            if (p.masterWorker) addInside(roleItem(K::MasterWorker, p.id), server);
        }
        if (!central || p.central) continue;
        // Across parties: the party's server(s) with the global server (data), its scheduler
        // with the global scheduler (control), container to container, side by side along one
        // route around every other party's box.
        const DesignerItem* from = m_items.value(ElementRef(K::Party, p.id).key());
        const DesignerItem* to = m_items.value(ElementRef(K::Party, central->id).key());
        if (!from || !to) continue;
        designer::Route route = designer::routeOrthogonal(from->sceneBoundingRect(), to->sceneBoundingRect(), boxes);
        if (!route.found()) route.points = {from->sceneBoundingRect().center(), to->sceneBoundingRect().center()};  // boxes touching
        QStringList link;  // what the data link carries and how fast: its codec, its emulated wan
        if (m_topology.training.compression != QLatin1String("none")) link << m_topology.training.compression;
        if (p.wan) link << tr("%1 Mbit/s · %2 ms").arg(p.wan->bandwidthMbps).arg(p.wan->latencyMs);
        if (p.collective()) link << tr("%1 inside").arg(p.transport);  // its lowest-ranked worker pushes the sum
        if ((!p.servers.isEmpty() || p.collective()) && !central->servers.isEmpty())
            add(new EdgeItem(designer::offsetRoute(route.points, 6), EdgeItem::Style::AcrossParties, link.join(QStringLiteral(" · ")),
                             boxes));
        if (p.scheduler && central->scheduler) add(new EdgeItem(designer::offsetRoute(route.points, -6), EdgeItem::Style::Control));
    }
}

QList<ElementRef> DesignerScene::selectedElements() const {
    QList<ElementRef> out;
    for (QGraphicsItem* i : selectedItems())
        if (i->type() == DesignerItem::kType) out << static_cast<DesignerItem*>(i)->ref();
    return out;
}

void DesignerScene::selectElements(const QList<ElementRef>& refs) {
    clearSelection();
    for (const ElementRef& r : refs)
        if (DesignerItem* i = m_items.value(r.key())) i->setSelected(true);
}

std::pair<QString, QString> DesignerScene::targetAt(QPointF pos, const QGraphicsItem* except) const {
    for (QGraphicsItem* i : items(pos)) {
        if (i->type() != DesignerItem::kType || (except && (i == except || except->isAncestorOf(i)))) continue;
        const ElementRef& r = static_cast<DesignerItem*>(i)->ref();
        if (r.kind == ElementRef::Kind::HostGroup) return {r.party, r.host};
        if (r.kind == ElementRef::Kind::Party) return {r.party, QString()};
        if (r.isRole() && i->parentItem() && i->parentItem()->type() == DesignerItem::kType) {
            const ElementRef& group = static_cast<DesignerItem*>(i->parentItem())->ref();
            if (group.kind == ElementRef::Kind::HostGroup) return {group.party, group.host};
        }
    }
    return {};
}

void DesignerScene::dropPaletteItem(PaletteItem item, QPointF pos) {
    Topology t = m_topology;
    const auto [party, host] = targetAt(pos);
    QString error;
    QString text;
    switch (item) {
        case PaletteItem::Party:
            // Its title under the pointer, where the user let go (its corner there put it below and right).
            error = edits::addParty(t, freeSpotNear(pos - QPointF(partySize({}).width() / 2, kHeaderH / 2), partySize({})));
            text = tr("Add party");
            break;
        case PaletteItem::Host:
            error = edits::addHost(t, party);
            text = tr("Add host");
            break;
        default:
            error = edits::addRole(t, item, party, host);
            text = item == PaletteItem::Scheduler ? tr("Add scheduler")
                   : item == PaletteItem::Server  ? tr("Add server")
                   : item == PaletteItem::Workers ? tr("Add workers")
                                                  : tr("Add master worker");
    }
    if (!error.isEmpty()) Q_EMIT refused(error);
    else Q_EMIT editRequested(text, t);
}

QSizeF DesignerScene::partySize(const QString& party) const {
    if (const DesignerItem* box = m_items.value(ElementRef(ElementRef::Kind::Party, party).key())) return box->rect().size();
    return {220, 2 * kHeaderH + 3 * (kRoleH + kGap) + 2 * kGap};  // a new party: three chips
}

QPointF DesignerScene::freeSpotNear(QPointF wanted, QSizeF size, const QString& except) const {
    constexpr qreal kMargin = 30;
    QList<QRectF> taken;
    for (const Party& p : m_topology.parties)
        if (const DesignerItem* box = p.id == except ? nullptr : m_items.value(ElementRef(ElementRef::Kind::Party, p.id).key()))
            taken << box->sceneBoundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin);
    auto freeAt = [&](QPointF at) {
        const QRectF r(at, size);
        return std::none_of(taken.begin(), taken.end(), [&](const QRectF& t) { return t.intersects(r); });
    };
    // Rings of growing distance, to the right and below first (where a user reads on).
    constexpr qreal kStep = 40;
    for (int ring = 0; ring < 60; ++ring)
        for (int dy = 0; dy <= ring; ++dy) {
            const QPointF right = wanted + QPointF(ring * kStep, dy * kStep), below = wanted + QPointF(dy * kStep, ring * kStep);
            if (freeAt(right)) return right;
            if (freeAt(below)) return below;
        }
    return wanted;
}

void DesignerScene::dragEnterEvent(QGraphicsSceneDragDropEvent* e) {
    e->setAccepted(e->mimeData()->hasFormat(kPaletteMime));
}

void DesignerScene::dragMoveEvent(QGraphicsSceneDragDropEvent* e) {
    e->setAccepted(e->mimeData()->hasFormat(kPaletteMime));
}

void DesignerScene::dropEvent(QGraphicsSceneDragDropEvent* e) {
    const auto item = paletteItemFromName(QString::fromUtf8(e->mimeData()->data(kPaletteMime)));
    if (!item) return;
    e->acceptProposedAction();
    dropPaletteItem(*item, e->scenePos());
}

void DesignerScene::mousePressEvent(QGraphicsSceneMouseEvent* e) {
    QGraphicsScene::mousePressEvent(e);
    m_pressPositions.clear();
    for (QGraphicsItem* i : selectedItems()) m_pressPositions.insert(i->data(0).toString(), i->pos());
}

void DesignerScene::mouseReleaseEvent(QGraphicsSceneMouseEvent* e) {
    QGraphicsScene::mouseReleaseEvent(e);
    if (e->button() == Qt::LeftButton) finishDrag(e);
}

DesignerItem* DesignerScene::elementAt(QPointF pos) const {
    for (QGraphicsItem* i : items(pos))  // topmost first: a chip before its host box and party
        if (i->type() == DesignerItem::kType) return static_cast<DesignerItem*>(i);
    return nullptr;
}

void DesignerScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) {
    DesignerItem* item = e->button() == Qt::LeftButton ? elementAt(e->scenePos()) : nullptr;
    if (!item) return QGraphicsScene::mouseDoubleClickEvent(e);
    selectElements({item->ref()});
    Q_EMIT editWanted(item->ref());
}

// As in every editor: a right click on an unselected element selects it alone first, so the
// menu acts on what is under the cursor; on a selected one it keeps the selection.
void DesignerScene::contextMenuEvent(QGraphicsSceneContextMenuEvent* e) {
    DesignerItem* item = elementAt(e->scenePos());
    if (!item) clearSelection();
    else if (!item->isSelected()) selectElements({item->ref()});
    Q_EMIT contextMenuWanted(e->screenPos(), e->scenePos());
}

// A drag ends as one edit: parties keep their new place (one undo step for the whole drag),
// a role dropped on another party or host is re-homed, anything else snaps back to where it was
// pressed. A click (nothing moved) changes nothing, so the selection it made stays.
void DesignerScene::finishDrag(QGraphicsSceneMouseEvent* e) {
    Topology t = m_topology;
    int moved = 0;
    QString text;
    QList<std::pair<DesignerItem*, QPointF>> snapBack;
    // A click whose hand moved a pixel or two (on the screen, whatever the zoom) is a click: what
    // it moved goes back (a role "moved" to its own host was an empty undo step, left astray).
    const bool nudged = (e->screenPos() - e->buttonDownScreenPos(Qt::LeftButton)).manhattanLength() < QApplication::startDragDistance();
    for (QGraphicsItem* i : selectedItems()) {
        if (i->type() != DesignerItem::kType) continue;
        auto* item = static_cast<DesignerItem*>(i);
        const auto press = m_pressPositions.find(item->ref().key());
        if (press == m_pressPositions.end() || *press == item->pos()) continue;
        if (nudged) {
            snapBack.append({item, *press});
            continue;
        }
        if (item->ref().kind == ElementRef::Kind::Party) {  // dropped on another party: beside it
            edits::setPartyPosition(t, item->ref().party, freeSpotNear(item->pos(), item->rect().size(), item->ref().party));
            ++moved;
            text = tr("Move party");
            continue;
        }
        const auto [party, host] = item->ref().isRole() ? targetAt(e->scenePos(), item) : std::pair<QString, QString>{};
        const QString error = party.isEmpty() ? QString() : edits::moveRole(t, item->ref(), party, host);
        if (!party.isEmpty() && error.isEmpty()) ++moved, text = tr("Move role to %1").arg(party);
        else snapBack.append({item, *press});
        if (!error.isEmpty()) Q_EMIT refused(error);
    }
    m_pressPositions.clear();
    if (moved > 0) Q_EMIT editRequested(text, t);
    else
        for (auto& [item, at] : snapBack) item->setPos(at);
}

}  // namespace hips
