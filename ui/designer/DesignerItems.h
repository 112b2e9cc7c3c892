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

// A line between two roles, derived from the hierarchy: worker → its party's server (a curve
// along the chips' left edges), party server → global server, scheduler → global scheduler.
class EdgeItem : public QGraphicsPathItem {
public:
    enum class Style { InsideParty, AcrossParties, Control };
    // Edges across parties join the party containers' facing edges (shifted by `offset` so that
    // a party's data and control links run side by side), never crossing a role's chip.
    // `label`, when given, is written at the line's middle (a party's link: its codec and wan).
    EdgeItem(const QGraphicsItem* from, const QGraphicsItem* to, Style style, qreal offset = 0, const QString& label = {});
    Style style() const { return m_style; }

private:
    Style m_style;
};

// Sizes shared by the scene's layout and the items.
namespace designer {
constexpr qreal kRoleW = 170, kRoleH = 26, kGap = 8, kHeaderH = 26;
}

}  // namespace hips
