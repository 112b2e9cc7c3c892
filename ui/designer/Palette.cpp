#include "Palette.h"

#include "DesignerScene.h"

#include <QMimeData>

namespace hips {

QList<PaletteEntry> Palette::entries() {
    return {
        {PaletteItem::Party, tr("Party"), QStringLiteral("party"), tr("A party: its own scheduler, server and workers")},
        {PaletteItem::Host, tr("Host"), QStringLiteral("host"), tr("A machine; drop it onto a party")},
        {PaletteItem::Scheduler, tr("Scheduler"), QStringLiteral("scheduler"), tr("Rendezvous, barriers and heartbeats of a party")},
        {PaletteItem::Server, tr("Server"), QStringLiteral("server"),
         tr("Aggregates its party's workers (global server in the central party)")},
        {PaletteItem::MasterWorker, tr("Master worker"), QStringLiteral("master"),
         tr("Initialises and evaluates the model (central party)")},
        {PaletteItem::Workers, tr("Workers"), QStringLiteral("workers"), tr("A group of training workers on one host")},
    };
}

Palette::Palette(QWidget* parent) : QListWidget(parent) {
    setDragEnabled(true);
    setDragDropMode(DragOnly);
    setIconSize(QSize(22, 22));
    setSpacing(2);
    for (const PaletteEntry& e : entries()) {
        auto* w = new QListWidgetItem(QIcon(QStringLiteral(":/icons/%1.svg").arg(e.icon)), e.label, this);
        w->setData(Qt::UserRole, paletteItemName(e.item));
        w->setToolTip(e.tip);
    }
}

QStringList Palette::mimeTypes() const {
    return {QString::fromLatin1(DesignerScene::kPaletteMime)};
}

QMimeData* Palette::mimeData(const QList<QListWidgetItem*>& items) const {
    auto* data = new QMimeData;
    if (!items.isEmpty()) data->setData(DesignerScene::kPaletteMime, items.first()->data(Qt::UserRole).toString().toUtf8());
    return data;
}

}  // namespace hips
