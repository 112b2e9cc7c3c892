#include "TopologyDiagram.h"

#include <algorithm>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QPainter>
#include <QPainterPath>

namespace hips {

namespace {

constexpr int kPad = 10, kGap = 14, kChipH = 20, kHeaderH = 22, kPartyGapY = 56;

QColor roleColorImpl(RoleKind kind) {
    switch (kind) {
        case RoleKind::GlobalScheduler:
        case RoleKind::Scheduler: return QColor(0x9e, 0x9e, 0x9e);
        case RoleKind::GlobalServer:
        case RoleKind::StateService: return QColor(0x94, 0x67, 0xbd);
        case RoleKind::Server: return QColor(0x1f, 0x77, 0xb4);
        case RoleKind::MasterWorker: return QColor(0xd6, 0x27, 0x28);
        case RoleKind::Worker: return QColor(0x2c, 0xa0, 0x2c);
    }
    return Qt::gray;
}

struct HostBox {
    QString title;
    QStringList chips;
    QList<RoleKind> kinds;
    QSize size;
};

struct PartyBox {
    QString title;
    bool central = false;
    QList<HostBox> hosts;
    QSize size;
    QRect rect;  // placed
};

QString chipText(const Node& n) {
    QString text = n.id.section('/', 1);
    if (n.port > 0) text += QStringLiteral("  :%1").arg(n.port);
    return text;
}

// Boxes sized to their text: chips and host lines in `font`, party titles in its bold (wider).
QList<PartyBox> measure(const Topology& t, const QFont& font) {
    const QFontMetrics fm(font);
    QFont boldFont = font;
    boldFont.setBold(true);
    const QFontMetrics bold(boldFont);
    QList<PartyBox> parties;
    const QList<Node> nodes = t.nodes();
    for (const Party& party : t.parties) {
        PartyBox box;
        box.central = party.central;
        box.title = party.central        ? QObject::tr("%1 (central party)").arg(party.id)
                    : party.collective() ? QObject::tr("%1 (%2, no party server)").arg(party.id, party.transport)
                                         : party.id;
        for (const Host& host : t.hosts) {
            HostBox hb;
            hb.title = QStringLiteral("%1  %2").arg(host.id, host.address);
            for (const Node& n : nodes)
                if (n.party == party.id && n.host == host.id) hb.chips << chipText(n), hb.kinds << n.kind;
            if (hb.chips.isEmpty()) continue;
            int w = fm.horizontalAdvance(hb.title) + 2 * kPad;
            for (const QString& c : hb.chips) w = std::max(w, fm.horizontalAdvance(c) + 4 * kPad);
            hb.size = QSize(w, kHeaderH + int(hb.chips.size()) * (kChipH + 4) + kPad);
            box.hosts << hb;
        }
        int w = kPad, h = 0;
        for (const HostBox& hb : box.hosts) w += hb.size.width() + kPad, h = std::max(h, hb.size.height());
        box.size = QSize(std::max(w, bold.horizontalAdvance(box.title) + 2 * kPad), kHeaderH + 4 + h + kPad);
        parties << box;
    }
    return parties;
}

void drawParty(QPainter& p, const PartyBox& box) {
    p.setPen(QPen(box.central ? QColor(0x94, 0x67, 0xbd) : QColor(0x60, 0x60, 0x60), 1.5));
    p.setBrush(box.central ? QColor(0xf4, 0xef, 0xfa) : QColor(0xf5, 0xf7, 0xfa));
    p.drawRoundedRect(box.rect, 8, 8);
    QFont bold = p.font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(Qt::black);
    p.drawText(box.rect.adjusted(kPad, 4, -kPad, 0), Qt::AlignLeft | Qt::AlignTop, box.title);
    bold.setBold(false);
    p.setFont(bold);
    int x = box.rect.left() + kPad;
    const int y = box.rect.top() + kHeaderH + 4;
    for (const HostBox& hb : box.hosts) {
        const QRect hr(QPoint(x, y), hb.size);
        p.setPen(QPen(QColor(0xb0, 0xb0, 0xb0), 1));
        p.setBrush(Qt::white);
        p.drawRoundedRect(hr, 5, 5);
        p.setPen(QColor(0x40, 0x40, 0x40));
        p.drawText(hr.adjusted(kPad, 3, -kPad, 0), Qt::AlignLeft | Qt::AlignTop, hb.title);
        for (int i = 0; i < hb.chips.size(); ++i) {
            const QRect chip(hr.left() + kPad, hr.top() + kHeaderH + i * (kChipH + 4), hr.width() - 2 * kPad, kChipH);
            const QColor c = roleColorImpl(hb.kinds[i]);
            p.setPen(Qt::NoPen);
            p.setBrush(c.lighter(170));
            p.drawRoundedRect(chip, 4, 4);
            p.setBrush(c);
            p.drawRoundedRect(QRect(chip.left(), chip.top(), 6, chip.height()), 3, 3);
            p.setPen(Qt::black);
            p.drawText(chip.adjusted(kPad + 2, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, hb.chips[i]);
        }
        x += hb.size.width() + kPad;
    }
}

}  // namespace

QColor roleColor(RoleKind kind) {
    return roleColorImpl(kind);
}

QImage drawTopologyDiagram(const Topology& topology, qreal scale) {
    QFont font = QGuiApplication::font();
    font.setPointSizeF(9);
    const QFontMetrics fm(font);
    QList<PartyBox> parties = measure(topology, font);

    // Central party on top, centred over the row of the others.
    int rowW = 0, rowH = 0, centralW = 0, centralH = 0;
    for (const PartyBox& b : parties) {
        if (b.central) centralW = b.size.width(), centralH = b.size.height();
        else rowW += b.size.width() + kGap, rowH = std::max(rowH, b.size.height());
    }
    rowW = std::max(0, rowW - kGap);
    const int width = std::max(rowW, centralW) + 2 * kGap;
    const int height = centralH + (rowH > 0 ? kPartyGapY + rowH : 0) + 2 * kGap;
    int x = (width - rowW) / 2;
    for (PartyBox& b : parties) {
        if (b.central) {
            b.rect = QRect(QPoint((width - b.size.width()) / 2, kGap), b.size);
        } else {
            b.rect = QRect(QPoint(x, kGap + centralH + kPartyGapY), b.size);
            x += b.size.width() + kGap;
        }
    }

    scale = std::min(scale, qreal(kDiagramMaxPixels) / qreal(std::max(width, height)));
    QImage image(QSize(width, height) * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setFont(font);
    const PartyBox* central = nullptr;
    for (const PartyBox& b : parties)
        if (b.central) central = &b;
    // Links across parties: each party's server exchanges aggregates with the global server.
    if (central) {
        p.setPen(QPen(QColor(0x94, 0x67, 0xbd), 2, Qt::DashLine));
        for (const PartyBox& b : parties) {
            if (b.central) continue;
            const QPointF from(b.rect.center().x(), b.rect.top());
            const QPointF to(central->rect.center().x(), central->rect.bottom());
            p.drawLine(from, to);
        }
        if (rowW > 0) {  // the label sits on the links, on a white ground
            const QString label = QObject::tr("aggregates up, model down");
            QRect box = fm.boundingRect(label).adjusted(-4, -2, 4, 2);
            box.moveCenter(QPoint(width / 2, central->rect.bottom() + kPartyGapY / 2));
            p.fillRect(box, Qt::white);
            p.setPen(QColor(0x60, 0x60, 0x60));
            p.drawText(box, Qt::AlignCenter, label);
        }
    }
    for (const PartyBox& b : parties) drawParty(p, b);
    return image;
}

}  // namespace hips
