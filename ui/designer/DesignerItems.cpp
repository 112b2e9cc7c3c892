#include "DesignerItems.h"

#include "LiteralText.h"

#include "TopologyDiagram.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QStyleOptionGraphicsItem>
#include <algorithm>
#include <cmath>

namespace hips {

namespace {

RoleKind roleKindOf(const ElementRef& ref, bool central) {
    switch (ref.kind) {
        case ElementRef::Kind::Scheduler: return central ? RoleKind::GlobalScheduler : RoleKind::Scheduler;
        case ElementRef::Kind::Server: return central ? RoleKind::GlobalServer : RoleKind::Server;
        case ElementRef::Kind::MasterWorker: return RoleKind::MasterWorker;
        case ElementRef::Kind::StateService: return RoleKind::StateService;
        default: return RoleKind::Worker;
    }
}

// A polyline with its corners rounded (radius up to 8, less on short stretches).
QPainterPath roundedPath(const QPolygonF& points) {
    QPainterPath path(points.value(0));
    auto unit = [](QPointF d) {
        const qreal l = std::hypot(d.x(), d.y());
        return l > 0 ? d / l : QPointF();
    };
    for (int k = 1; k + 1 < points.size(); ++k) {
        const QPointF in = points[k] - points[k - 1], out = points[k + 1] - points[k];
        const qreal r = std::min({8.0, std::hypot(in.x(), in.y()) / 2, std::hypot(out.x(), out.y()) / 2});
        path.lineTo(points[k] - unit(in) * r);
        path.quadTo(points[k], points[k] + unit(out) * r);
    }
    if (points.size() > 1) path.lineTo(points.last());
    return path;
}

}  // namespace

DesignerItem::DesignerItem(const ElementRef& ref, const QString& title, const QString& subtitle, QGraphicsItem* parent)
    : QGraphicsRectItem(parent), m_ref(ref), m_title(title), m_subtitle(subtitle) {
    setFlag(ItemIsSelectable);
    // Parties move freely; roles can be dragged onto another party or host (the scene re-homes them).
    setFlag(ItemIsMovable, ref.kind == ElementRef::Kind::Party || ref.isRole());
    // (Ids and addresses come from the file: drawn as typed, never as markup.)
    setToolTip(literalToolTip(subtitle.isEmpty() ? title : title + QStringLiteral("\n") + subtitle));
    setData(0, ref.key());
}

void DesignerItem::setIssue(const QString& message) {
    m_issue = message;
    setToolTip(literalToolTip(message.isEmpty() ? m_title : m_title + QStringLiteral("\n⚠ ") + message));
    delete m_badge;
    m_badge = message.isEmpty() ? nullptr : issueBadge(this);
    update();
}

// The red "!" on an item's top right corner, half outside it: a child item of its own, since an
// item paints only inside its bounding rectangle (drawn by the item itself, the badge was cut
// in half where it stuck out).
QGraphicsItem* DesignerItem::issueBadge(DesignerItem* on) {
    auto* badge = new QGraphicsEllipseItem(0, 0, 16, 16, on);
    badge->setPos(on->rect().right() - 9, on->rect().top() - 7);
    badge->setPen(Qt::NoPen);
    badge->setBrush(QColor(0xd0, 0x30, 0x30));
    badge->setZValue(10);  // above the item's own children (a party's hosts)
    badge->setToolTip(on->toolTip());
    badge->setAcceptedMouseButtons(Qt::NoButton);  // a click there is the item's
    auto* mark = new QGraphicsSimpleTextItem(QStringLiteral("!"), badge);
    QFont bold = mark->font();
    bold.setBold(true);
    mark->setFont(bold);
    mark->setBrush(Qt::white);
    mark->setPos(QPointF(8, 8) - mark->boundingRect().center());
    return badge;
}

void DesignerItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
    const QRectF r = rect();
    const bool selected = option->state & QStyle::State_Selected;
    const QColor issueRed(0xd0, 0x30, 0x30), selectBlue(0x30, 0x80, 0xe0);
    p->setRenderHint(QPainter::Antialiasing);
    QPen pen(hasIssue() ? issueRed : selected ? selectBlue : QColor(0x90, 0x90, 0x90), hasIssue() || selected ? 2.5 : 1);
    if (m_ref.kind == ElementRef::Kind::Party) {
        const bool central = m_subtitle == QLatin1String("central");
        if (!hasIssue() && !selected) pen.setColor(central ? QColor(0x94, 0x67, 0xbd) : QColor(0x70, 0x70, 0x70));
        p->setPen(pen);
        p->setBrush(central ? QColor(0xf4, 0xef, 0xfa) : QColor(0xf3, 0xf5, 0xf8));
        p->drawRoundedRect(r, 10, 10);
        QFont f = p->font();
        QFont tagFont = f;
        tagFont.setPointSizeF(f.pointSizeF() * 0.85);
        // So it reads as such whatever its name; a Slurm party's says "SLURM JOB".
        const QString tag = central ? QObject::tr("CENTRAL PARTY") : m_subtitle.toUpper();
        const qreal tagWidth = tag.isEmpty() ? 0 : QFontMetricsF(tagFont).horizontalAdvance(tag) + 12;
        f.setBold(true);
        p->setFont(f);
        p->setPen(Qt::black);
        // A name longer than the box ends in "…" (the tooltip has it whole), clear of the tag.
        const QRectF titleBox = r.adjusted(10, 4, -10 - tagWidth, 0);
        p->drawText(titleBox, Qt::AlignLeft | Qt::AlignTop, QFontMetricsF(f).elidedText(m_title, Qt::ElideRight, titleBox.width()));
        if (!tag.isEmpty()) {
            p->setFont(tagFont);
            p->setPen(central ? QColor(0x94, 0x67, 0xbd) : QColor(0x50, 0x70, 0x90));
            p->drawText(r.adjusted(10, 5, -12, 0), Qt::AlignRight | Qt::AlignTop, tag);
        }
    } else if (m_ref.kind == ElementRef::Kind::HostGroup) {
        p->setPen(pen);
        p->setBrush(Qt::white);
        p->drawRoundedRect(r, 6, 6);
        p->setPen(QColor(0x40, 0x40, 0x40));
        const QRectF titleBox = r.adjusted(8, 3, -8, 0);
        p->drawText(titleBox, Qt::AlignLeft | Qt::AlignTop,
                    p->fontMetrics().elidedText(m_title + QStringLiteral("  ") + m_subtitle, Qt::ElideRight, int(titleBox.width())));
    } else {
        const bool central = parentItem() && parentItem()->parentItem() &&
                             static_cast<DesignerItem*>(parentItem()->parentItem())->m_subtitle == QLatin1String("central");
        const QColor c = roleColor(roleKindOf(m_ref, central));
        p->setPen(hasIssue() || selected ? pen : Qt::NoPen);
        p->setBrush(c.lighter(165));
        p->drawRoundedRect(r, 5, 5);
        p->setPen(Qt::NoPen);
        p->setBrush(c);
        p->drawRoundedRect(QRectF(r.left(), r.top(), 6, r.height()), 3, 3);
        // The subtitle (port, count or what is wrong) right-aligned, the title elided clear of it.
        const QRectF text = r.adjusted(12, 0, -6, 0);
        const QFontMetricsF metrics(p->font());
        const qreal subtitleWidth = m_subtitle.isEmpty() ? 0 : metrics.horizontalAdvance(m_subtitle) + 8;
        p->setPen(Qt::black);
        p->drawText(text, Qt::AlignVCenter | Qt::AlignLeft, metrics.elidedText(m_title, Qt::ElideRight, text.width() - subtitleWidth));
        if (!m_subtitle.isEmpty()) {
            p->setPen(QColor(0x50, 0x50, 0x50));
            p->drawText(text, Qt::AlignVCenter | Qt::AlignRight, m_subtitle);
        }
    }
}

EdgeItem::EdgeItem(const QGraphicsItem* worker, const QGraphicsItem* server) : m_style(Style::InsideParty) {
    const QRectF a = worker->sceneBoundingRect(), b = server->sceneBoundingRect();
    const QPointF start(a.left(), a.center().y()), end(b.left(), b.center().y());
    const qreal bulge = 6 + std::min<qreal>(40, std::abs(end.y() - start.y()) / 6);
    QPainterPath path(start);
    path.cubicTo(start - QPointF(bulge, 0), end - QPointF(bulge, 0), end);
    setPath(path);
    setPen(QPen(QColor(0x2c, 0xa0, 0x2c, 170), 1.4));
    setZValue(1);  // above the party containers, which are opaque
    setAcceptedMouseButtons(Qt::NoButton);
}

EdgeItem::EdgeItem(const QPolygonF& route, Style style, const QString& label, const QList<QRectF>& boxes) : m_style(style), m_route(route) {
    setPath(roundedPath(route));
    setPen(style == Style::Control ? QPen(QColor(0x90, 0x90, 0x90), 1, Qt::DotLine) : QPen(QColor(0x94, 0x67, 0xbd, 210), 2));
    if (!label.isEmpty()) addLabel(label, boxes);
    setZValue(1);
    setAcceptedMouseButtons(Qt::NoButton);
}

// On a light chip at the middle of the longest stretch it fits on clear of every box.
void EdgeItem::addLabel(const QString& label, const QList<QRectF>& boxes) {
    auto* chip = new QGraphicsRectItem(this);
    auto* text = new QGraphicsSimpleTextItem(label, chip);
    QFont font = text->font();
    font.setPointSizeF(font.pointSizeF() * 0.8);
    text->setFont(font);
    text->setBrush(pen().color().darker(130));
    const QRectF box = text->boundingRect().adjusted(-3, -1, 3, 1);
    chip->setRect(box);
    chip->setBrush(QColor(255, 255, 255, 235));
    chip->setPen(QPen(pen().color().lighter(130), 0.8));
    QList<int> stretches;
    for (int k = 0; k + 1 < m_route.size(); ++k) stretches << k;
    auto length = [&](int k) { return QLineF(m_route[k], m_route[k + 1]).length(); };
    std::stable_sort(stretches.begin(), stretches.end(), [&](int a, int b) { return length(a) > length(b); });
    for (int k : std::as_const(stretches)) {
        const QPointF at = (m_route[k] + m_route[k + 1]) / 2 - box.center();
        const QRectF placed = box.translated(at);
        if (std::none_of(boxes.begin(), boxes.end(), [&](const QRectF& b) { return b.intersects(placed); })) return chip->setPos(at);
    }
    if (!stretches.isEmpty()) chip->setPos((m_route[stretches[0]] + m_route[stretches[0] + 1]) / 2 - box.center());
}

}  // namespace hips
