#pragma once
// The topology drawn as parties (containers) holding host groups holding role chips, with the
// edges the hierarchy implies. After an edit only the parties it changed are drawn anew (a new
// document or a host change redraws everything); user gestures (a palette drop, a party dragged,
// a role dragged onto another party or host) come out as edit requests: the new topology, which
// the designer's document pushes on its undo stack.
#include "DesignerItems.h"
#include "TopologyDocument.h"

#include <QGraphicsScene>
#include <QHash>

namespace hips {

class DesignerScene : public QGraphicsScene {
    Q_OBJECT
public:
    static constexpr const char* kPaletteMime = "application/x-hips-palette";

    explicit DesignerScene(QObject* parent = nullptr);

    void setTopology(const Topology& topology, const TopologyIssues& issues);  // everything anew
    // The document changed as `change` says: the parties it names are drawn anew, the rest stay.
    void update(const Topology& topology, const TopologyIssues& issues, const TopologyChange& change);
    const Topology& topology() const { return m_topology; }
    DesignerItem* item(const ElementRef& ref) const { return m_items.value(ref.key()); }
    QList<ElementRef> elements() const;  // every element drawn
    QList<ElementRef> selectedElements() const;
    void selectElements(const QList<ElementRef>& refs);
    int edgeCount() const { return m_edges; }

    // Drops a palette item at a scene position, as a drag-and-drop would.
    void dropPaletteItem(PaletteItem item, QPointF scenePos);
    // The nearest place at or right of / below `wanted` where a box of `size` overlaps no party
    // but `except` (with a margin): where a dropped, pasted or dragged party goes.
    QPointF freeSpotNear(QPointF wanted, QSizeF size, const QString& except = {}) const;
    QSizeF partySize(const QString& party) const;  // its box's, or a new party's

Q_SIGNALS:
    void editRequested(const QString& text, const Topology& after);
    void refused(const QString& why);  // a gesture that cannot become an edit, and why
    // A right click at `scenePos` (the element under it, if any, is now selected).
    void contextMenuWanted(QPoint screenPos, QPointF scenePos);
    void editWanted(const ElementRef& element);  // a double click on an element

protected:
    void dragEnterEvent(QGraphicsSceneDragDropEvent* event) override;
    void dragMoveEvent(QGraphicsSceneDragDropEvent* event) override;
    void dropEvent(QGraphicsSceneDragDropEvent* event) override;
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
    void contextMenuEvent(QGraphicsSceneContextMenuEvent* event) override;

private:
    void build();
    void replaceParty(const QString& id);
    void removeParty(const QString& id);
    DesignerItem* addParty(const Party& party, QPointF position);
    void addEdges();
    void settleParties();
    QPointF wishedPosition(const QString& party) const;  // where the user put it, or the default layout
    void markIssues();
    // The party and host under a scene position, ignoring `except` and its children.
    std::pair<QString, QString> targetAt(QPointF scenePos, const QGraphicsItem* except = nullptr) const;
    void finishDrag(QGraphicsSceneMouseEvent* event);
    DesignerItem* elementAt(QPointF scenePos) const;  // the innermost one

    Topology m_topology;
    TopologyIssues m_issues;
    QHash<QString, DesignerItem*> m_items;  // by ElementRef::key()
    QHash<QString, QPointF> m_laidOut;  // the default layout's place of each party the user has not placed
    QHash<QString, QPointF> m_pressPositions;  // moved items' positions at the press
    int m_edges = 0;
    QList<QGraphicsItem*> m_edgeItems;
};

}  // namespace hips
