#pragma once
// The designer's scene items. Each holds only an ElementRef and what it draws; the scene
// rebuilds them from the topology after every edit, so they never hold state of their own.
#include "TopologyEdits.h"

#include <QGraphicsRectItem>

namespace hips {

class DesignerItem : public QGraphicsRectItem {
public:
    static constexpr int kType = UserType + 1;
    DesignerItem(const ElementRef& ref, const QString& title, const QString& subtitle, QGraphicsItem* parent = nullptr);

    int type() const override { return kType; }
    const ElementRef& ref() const { return m_ref; }
    void setIssue(const QString& message);  // empty: none
    bool hasIssue() const { return !m_issue.isEmpty(); }

    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    static QGraphicsItem* issueBadge(DesignerItem* on);

    ElementRef m_ref;
    QString m_title, m_subtitle, m_issue;
    QGraphicsItem* m_badge = nullptr;  // a child: deleted with the item
};

// A line the hierarchy implies: worker → its party's server inside a party (a curve along the
// chips' left edges), party → central party across parties (data and control, along a route
// around the other parties' boxes: EdgeRouter).
class EdgeItem : public QGraphicsPathItem {
public:
    enum class Style { InsideParty, AcrossParties, Control };
    EdgeItem(const QGraphicsItem* worker, const QGraphicsItem* server);  // InsideParty
    // Along `route` (scene coordinates), its corners drawn round. `label`, when given, is written
    // on the route's longest stretch where it covers none of `boxes` (a link's codec and wan).
    EdgeItem(const QPolygonF& route, Style style, const QString& label = {}, const QList<QRectF>& boxes = {});
    Style style() const { return m_style; }
    const QPolygonF& route() const { return m_route; }  // empty inside a party

private:
    void addLabel(const QString& label, const QList<QRectF>& boxes);

    Style m_style;
    QPolygonF m_route;
};

// Sizes shared by the scene's layout and the items.
namespace designer {
constexpr qreal kRoleW = 170, kRoleH = 26, kGap = 8, kHeaderH = 26;
}

}  // namespace hips
